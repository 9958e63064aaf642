package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

// startReal runs the UI at w×h on a real runtime built from opts.
func startReal(t *testing.T, rtOpts runtime.Options, w, h int, mod ...func(*Options)) (*harness, *runtime.Controller) {
	t.Helper()
	if rtOpts.StopGrace == 0 {
		rtOpts.StopGrace = time.Second
	}
	rt := runtime.New(rtOpts)
	t.Cleanup(func() { rt.Shutdown(context.Background()) })
	opts := Options{Runtime: rt}
	for _, f := range mod {
		f(&opts)
	}
	p := &probe{m: newModel(opts.withDefaults()), signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	hs := &harness{t: t, tm: tm, p: p}
	hs.detach = Attach(rt, tm.Send)
	if opts.LoginURLs != nil {
		t.Cleanup(opts.LoginURLs.Attach(tm.Send))
	}
	t.Cleanup(hs.stop)
	hs.waitView("first frame", func(string) bool { return true })
	return hs, rt
}

// demoServer is the demo server as this test binary.
func demoServer(t *testing.T) config.Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.Server{
		Name: "demo", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second, PingInterval: time.Minute,
	}
}

// TestResourceReadSubscribeUpdateOnTheRealRuntime: read the demo server's
// status resource, subscribe, call a tool (which changes the status): the
// update arrives, the resource is read again, and the viewer shows the
// new contents. Then a template read with a completed variable.
func TestResourceReadSubscribeUpdateOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.keys("8", "tab")
	hs.waitText("1 resource · 1 template", "demo://status")
	hs.keys("enter")
	hs.waitText("demo › demo://status", "tool calls: 0")
	hs.keys("u")
	hs.waitText("◉ demo › demo://status", "subscribed: updates re-read it")
	if v, _ := rt.Snapshot().Server("demo"); len(v.Subscriptions) != 1 {
		t.Fatalf("subscriptions in the snapshot: %v", v.Subscriptions)
	}
	hs.keys("esc", "2")
	hs.waitText("› add")
	hs.keys("j", "enter")
	hs.waitText("Call demo › echo")
	hs.keys("h", "i", "enter")
	hs.waitText("Result of demo › echo")
	hs.keys("esc")
	// The update re-reads the subscribed resource in the background: the
	// reads counted below include it. (Its status line is not waited for
	// here: the call's "returned" may come after it and replace it;
	// TestSubscribedResourceRereadsOnUpdate checks that line.)
	hs.keys("4")
	hs.waitText("notifications/resources")
	hs.keys("8")
	hs.waitText("updated ")
	hs.keys("enter")
	hs.waitText("tool calls: 1 (", "3 reads")

	// A template: its variable completes from the server.
	hs.keys("esc", "G", "enter")
	hs.waitText("Read demo › greeting")
	hs.keys("G", "r")
	hs.waitText("suggestions: Grace")
	hs.keys("right", "enter")
	hs.waitText("demo › demo://greeting/Grace", "Hello, Grace!")
}

// TestPromptAndLogLevelOnTheRealRuntime: the demo server's greet prompt
// with a completed argument, and its log level changed by L.
func TestPromptAndLogLevelOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, 120, 35)
	hs.keys("m")
	hs.waitText("servers 1/1 ready", "log level    info")
	hs.keys("9", "tab", "enter")
	hs.waitText("Prompt demo › greet", "name *")
	hs.keys("l")
	hs.waitText("suggestions: Linus")
	hs.keys("ctrl+f", "enter")
	hs.waitText("── 1 user", "Please greet Linus warmly")
	hs.keys("esc", "L")
	hs.waitText("Log level of demo")
	hs.keys("G", "enter")
	hs.waitText("demo now logs at emergency")
	hs.keys("1")
	hs.waitText("log level    emergency")
	if v, _ := rt.Snapshot().Server("demo"); v.LogLevel != "emergency" {
		t.Errorf("the runtime's level is %q", v.LogLevel)
	}
}

// TestApprovalReadsTheProjectFileAgain: a project file whose envFile the
// server reports. The approval dialog shows what the server would run.
// Before approval nothing starts and the envFile is not read; after
// approval the configuration is read again and handed to the
// runtime before MCP starts, so the server runs with the envFile's value.
func TestApprovalReadsTheProjectFileAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	path, args, _ := jsonrpctest.Command(jsonrpctest.SecretLeak)
	srv := map[string]any{"command": path, "args": args, "env": jsonrpctest.ServerEnv(jsonrpctest.SecretLeak), "envFile": "fake.env"}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"leak": srv}})
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "fake.env"), []byte("FAKE_SECRET=tok-from-envfile-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := config.OpenTrustStore(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{ProjectDir: proj, UserConfigDir: filepath.Join(dir, "user"), Approved: ts.Trusted, KeepInvalid: true})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	leak, _ := cfg.Server("leak")
	if !leak.Unapproved || leak.Env[jsonrpctest.EnvSecret] != "" {
		t.Fatalf("before approval the server is %+v: the envFile was read", leak)
	}
	var reads int
	hs, rt := startReal(t, runtime.Options{Config: cfg}, 120, 35, func(o *Options) {
		o.Untrusted = cfg.Untrusted(ts)
		o.Trust = ts.Trust
		o.Reload = func() (*config.Config, error) { reads++; return load() }
		o.Config = cfg
	})
	// The dialog shows what would run: the command and its env file.
	hs.waitText("Approve project configuration?", "leak (stdio)", "run   ", "fake.env (env file, read once approved)")
	hs.keys("n")
	hs.waitText("MCP stays off")
	if v, _ := rt.Snapshot().Server("leak"); v.State != runtime.StateDisabled || v.PID != 0 {
		t.Fatalf("after no, leak is %s (pid %d)", v.State, v.PID)
	}
	hs.keys("m")
	hs.waitText("Approve project configuration?")
	hs.keys("y")
	hs.waitText("servers 1/1 ready")
	hs.keys("2")
	hs.waitText("authenticated with token ••••••.")
	if reads != 1 {
		t.Errorf("the configuration was read %d times after the approval, want once", reads)
	}
}

// TestLoginFromTheTUI: a server behind MCP authorization shows "needs
// login"; i logs in through the (fake) browser, showing the URL, and the
// server reconnects with the token; the overview says where tokens are
// kept; I logs out.
func TestLoginFromTheTUI(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	store, err := auth.OpenStore(auth.StoreOptions{Dir: t.TempDir(), Kind: auth.StorageFile})
	if err != nil {
		t.Fatal(err)
	}
	urls := &LoginURLs{}
	browsed := make(chan string, 1)
	mgr := auth.NewManager(auth.Options{Store: store, OnSecret: config.AddSecret, OnURL: urls.Report, OpenURL: func(u string) error {
		browsed <- u
		return nil
	}})
	srv := config.Server{Name: "prot", Transport: config.TransportHTTP, URL: rs.URL, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second, PingInterval: time.Minute}
	cfg := &config.Config{Servers: []config.Server{srv}}
	hs, rt := startReal(t, runtime.Options{Config: cfg, Auth: mgr}, 140, 40, func(o *Options) {
		o.Auth, o.LoginURLs = mgr, urls
		o.AuthTarget = func(name string) (auth.Target, bool) {
			s, ok := cfg.Server(name)
			return auth.TargetOf(s), ok
		}
	})
	hs.keys("m")
	hs.waitText("needs login", "i opens the browser to log in", "tokens kept in file")
	hs.keys("i")
	hs.waitText("Log in to prot")
	var u string
	select {
	case u = <-browsed:
	case <-time.After(waitWithin):
		t.Fatal("the browser was not opened")
	}
	hs.waitText("open this address", "/authorize?")
	// The person allows in the browser; the server reconnects with the token.
	if err := authtest.Follow(u); err != nil {
		t.Fatal(err)
	}
	hs.waitText("servers 1/1 ready", "token valid until")
	if v, _ := rt.Snapshot().Server("prot"); v.State != runtime.StateReady {
		t.Fatalf("prot is %s after login", v.State)
	}
	hs.keys("I")
	hs.waitText("logged out of prot", "no token stored")
	v := hs.waitText("no token stored")
	for _, tok := range as.IssuedTokens() {
		if strings.Contains(v, tok) {
			t.Fatal("a token is on the screen")
		}
	}
}

// TestLoginCancelled: esc cancels a login waiting for the browser.
func TestLoginCancelled(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	store, err := auth.OpenStore(auth.StoreOptions{Dir: t.TempDir(), Kind: auth.StorageFile})
	if err != nil {
		t.Fatal(err)
	}
	urls := &LoginURLs{}
	mgr := auth.NewManager(auth.Options{Store: store, OnURL: urls.Report, OpenURL: func(string) error { return nil }})
	srv := config.Server{Name: "prot", Transport: config.TransportHTTP, URL: rs.URL, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second}
	cfg := &config.Config{Servers: []config.Server{srv}}
	var copied []string
	hs, _ := startReal(t, runtime.Options{Config: cfg, Auth: mgr}, 120, 35, func(o *Options) {
		o.Auth, o.LoginURLs = mgr, urls
		o.AuthTarget = func(string) (auth.Target, bool) { return auth.TargetOf(srv), true }
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	hs.keys("i")
	hs.waitText("Log in to prot", "/authorize?")
	hs.keys("y")
	hs.waitText("copied the authorization URL")
	if len(copied) != 1 || !strings.Contains(copied[0], "/authorize?") {
		t.Errorf("copied %q", copied)
	}
	hs.keys("esc")
	hs.waitText("login to prot cancelled")
}

// TestEverythingLogLevelAndRootsOnTheRealRuntime: server-everything takes
// the level chosen with L (logging/setLevel), and the roots added with o
// reach it: its get-roots-list tool appears once roots are declared (the
// server is reconnected, since the capability changes) and lists them.
func TestEverythingLogLevelAndRootsOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script}, Enabled: true,
		StartupTimeout: 30 * time.Second, CallTimeout: 20 * time.Second, PingInterval: time.Minute}
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready", "log level    info", "none offered")
	hs.keys("L")
	hs.waitText("Log level of everything")
	hs.keys("g", "enter")
	hs.waitText("everything now logs at debug", "log level    debug")
	hs.keys("2")
	// 15: trigger-sampling-request too, since the TUI offers sampling.
	if v := hs.waitText("[2 Tools]", "15 of 15 tools", "toggle-simulated-logging", "trigger-sampling-request"); strings.Contains(v, "get-roots-list") {
		t.Fatalf("get-roots-list is offered although no roots are declared:\n%s", v)
	}
	dir := t.TempDir()
	hs.keys("o")
	hs.waitText("Roots of everything")
	hs.keys("+")
	hs.tm.Type(dir)
	hs.keys("enter", "enter")
	hs.waitText("servers 1/1 ready", "16 of 16 tools", "get-roots-list")
	hs.keys("tab", "/")
	hs.tm.Type("roots")
	hs.keys("enter", "enter")
	hs.waitText("Call everything › get-roots-list")
	hs.keys("enter")
	hs.waitText("Result of everything › get-roots-list", "file://"+dir)
	if v, _ := rt.Snapshot().Server("everything"); v.LogLevel != "debug" || len(v.Roots) != 1 {
		t.Errorf("after the reconnect: level %q, roots %v", v.LogLevel, v.Roots)
	}
}

// TestResourceNotFoundHintOnTheRealRuntime: the demo server answers
// resources/read of a URI it does not have with -32002. The viewer says
// the read failed, with the code and method, and the hint says the
// resource does not exist there, not the generic protocol error hint.
func TestResourceNotFoundHintOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	// As the Resources tab asks for a read.
	hs.tm.Send(readIntentMsg{key: resKey{server: "demo", uri: "demo://nowhere"}})
	v := hs.waitText("demo › demo://nowhere", "✗ the read failed", "code -32002 · demo · resources/read",
		"hint: the resource does not exist on demo: pick one from its resources in the Resources tab (8)")
	if strings.Contains(v, "reported an error") {
		t.Errorf("the generic hint is shown:\n%s", v)
	}
}

// TestToolsFilterIsShownAndEscClearsIt: a filter applied to the Tools
// tab stays applied when the person leaves the tab and comes back, and
// the list's title says so, with the key that clears it; esc on the list
// clears it and every tool shows again.
func TestToolsFilterIsShownAndEscClearsIt(t *testing.T) {
	t.Parallel()
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, 120, 35)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.keys("2", "tab")
	hs.waitText("4 of 4 tools")
	hs.keys("/", "e", "c", "h", "enter")
	hs.waitText("1 of 4 tools · filter: ech (esc clears)", "› echo")
	hs.keys("1", "2") // away and back
	v := hs.waitText("[2 Tools]", "1 of 4 tools · filter: ech (esc clears)")
	if !strings.Contains(v, "esc clear filter") {
		t.Errorf("the help bar does not offer esc:\n%s", v)
	}
	hs.keys("esc")
	v = hs.waitText("4 of 4 tools", "filter cleared")
	if strings.Contains(v, "filter: ech") {
		t.Errorf("the filter is still shown:\n%s", v)
	}
	// esc with nothing filtered does nothing.
	hs.keys("esc")
	hs.waitText("4 of 4 tools")
}
