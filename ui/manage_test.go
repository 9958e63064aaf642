package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/registry"
	"mcpdeck/runtime/registry/registrytest"
	"mcpdeck/ui/uitest"
)

// manageWorld is a configuration file the TUI edits, read back by r.
type manageWorld struct {
	path string
}

func newManageWorld(t *testing.T, content string) manageWorld {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // Save's lock
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return manageWorld{path: path}
}

func (w manageWorld) read(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(w.path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// options wire the world into the UI: r reads the file, a/e/D write it.
func (w manageWorld) options(try func(context.Context, config.Server) (string, error), reg *registry.Client) func(*Options) {
	return func(o *Options) {
		o.Reload = func() (*config.Config, error) {
			return config.Load(config.LoadOptions{Files: []string{w.path}, KeepInvalid: true})
		}
		o.Manage = &Manage{Files: []ManageFile{{Label: "--config", Path: w.path}}, Try: try, Registry: reg}
	}
}

// tryOnRuntime is Manage.Try on a runtime of its own, as the command
// line wires it.
func tryOnRuntime(ctx context.Context, s config.Server) (string, error) {
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{s}}, StopGrace: time.Second})
	defer rt.Shutdown(context.Background())
	if err := rt.SetEnabled(ctx, true); err != nil {
		return "", err
	}
	v, _ := rt.Snapshot().Server(s.Name)
	if !v.State.Live() {
		return "", fmt.Errorf("%s is %s: %s", s.Name, v.State, v.Reason)
	}
	return fmt.Sprintf("%s is %s with %d tools", s.Name, v.State, len(v.Tools)), nil
}

// demoLine is the demo server (this test binary) as the add form's
// command and env lines.
func demoLine(t *testing.T) (command, env string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.ShellQuote(exe) + " -test.run=^$", envDemo + "=1 GORACE=atexit_sleep_ms=0"
}

// The acceptance path: with MCP on, a server added with the form (tried
// first) starts without a restart; edited, it restarts; removed, it
// stops. The file keeps its comment throughout.
func TestAddEditRemoveOnTheRealRuntime(t *testing.T) {
	command, env := demoLine(t)
	exe, _ := os.Executable()
	w := newManageWorld(t, fmt.Sprintf(`// servers for the TUI test
{
  "mcpServers": {
    "demo": {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1", "GORACE": "atexit_sleep_ms=0"}}
  }
}
`, exe, envDemo))
	cfg, err := config.Load(config.LoadOptions{Files: []string{w.path}})
	if err != nil {
		t.Fatal(err)
	}
	hs, rt := startReal(t, runtime.Options{Config: cfg}, 140, 40, w.options(tryOnRuntime, nil))
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.keys("a")
	hs.waitText("Add a server", "Paste a JSON entry")
	hs.keys("second", "tab", "tab", command, "tab", env)
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlG})
	hs.waitText("✓ second is ready with 4 tools")
	if v, _ := rt.Snapshot().Server("second"); v.Name != "" {
		t.Fatal("trying the server added it to the session")
	}
	hs.keys("enter")
	hs.waitText("Configuration reloaded", "added", "second")
	hs.keys("esc")
	hs.waitText("servers 2/2 ready")
	if got := w.read(t); !strings.HasPrefix(got, "// servers for the TUI test\n") || !strings.Contains(got, `"second": {`) {
		t.Fatalf("the file:\n%s", got)
	}

	hs.keys("G", "e")
	hs.waitText("Edit second", "name        second", "› transport")
	hs.keys("tab", "tab", " EXTRA=1", "enter")
	hs.waitText("Configuration reloaded", "restarted")
	hs.keys("esc")
	hs.waitText("servers 2/2 ready")
	if s, _ := loadServer(t, w.path, "second"); s.Env["EXTRA"] != "1" {
		t.Errorf("the edit did not land: %v\n%s", s.Env, w.read(t))
	}

	hs.keys("D")
	hs.waitText("Remove second?", w.path)
	hs.keys("y")
	hs.waitText("Configuration reloaded", "removed")
	hs.keys("esc")
	hs.waitText("servers 1/1 ready")
	if got := w.read(t); strings.Contains(got, "second") || !strings.HasPrefix(got, "// servers for the TUI test\n") {
		t.Errorf("after removing:\n%s", got)
	}
}

func loadServer(t *testing.T, path, name string) (config.Server, bool) {
	t.Helper()
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Server(name)
}

// Fields are checked as they are typed; a pasted JSON entry fills the
// form; a secret in it makes the form ask how to store it, and the
// default writes a reference, not the token.
func TestAddFormValidatesAndTakesAPaste(t *testing.T) {
	w := newManageWorld(t, `{"mcpServers": {}}`)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40, w.options(nil, nil))
	hs.keys("a")
	hs.waitText("Add a server")
	hs.keys("bad name")
	hs.waitText("✗ use 1 to 64 letters, digits")
	for range len("bad name") {
		hs.keys("backspace")
	}
	hs.keys("everything")
	hs.waitText("✗ a server of this name is already configured")
	for range len("everything") {
		hs.keys("backspace")
	}
	hs.keys("enter")
	hs.waitText("✗ required", "fix the fields marked ✗ first")
	hs.keys("sentry")
	const token = "sntrys_abcdefghijklmnop0123"
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune(`{"type": "http", "url": "https://mcp.sentry.dev/mcp", "headers": {"Authorization": "Bearer ` + token + `"}, "timeout": 9000}`)})
	hs.waitText("filled from the pasted JSON", "http (Streamable HTTP)", "[https://mcp.sentry.dev/mcp", "secrets", "${env:NAME} reference", "also kept: timeout")
	hs.keys("enter")
	hs.waitText("Saved", "added sentry in", "headers.Authorization is written as", "${env:SENTRY_AUTHORIZATION}", "SENTRY_AUTHORIZATION is not set")
	hs.action("reload")
	got := w.read(t)
	if strings.Contains(got, token) || !strings.Contains(got, `"Authorization": "Bearer ${env:SENTRY_AUTHORIZATION}"`) || !strings.Contains(got, `"timeout": 9000`) {
		t.Fatalf("the file:\n%s", got)
	}
}

// A header with no credential after its scheme is refused by the form, as
// by --header: the field says why and nothing is saved.
func TestAddFormRefusesAHeaderWithNoCredential(t *testing.T) {
	w := newManageWorld(t, `{"mcpServers": {}}`)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40, w.options(nil, nil))
	hs.keys("a")
	hs.waitText("Add a server")
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune(`{"remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer "}}}`)})
	hs.waitText("filled from the pasted JSON")
	hs.keys("enter")
	hs.waitText("no credential after the scheme", "fix the fields marked ✗ first")
	if got := w.read(t); strings.Contains(got, "remote") {
		t.Fatalf("the file:\n%s", got)
	}
}

// A server keyed by its name, pasted into the empty form, fills the name
// too; a paste that is no server says so once.
func TestAddFormTakesAKeyedPaste(t *testing.T) {
	w := newManageWorld(t, `{"mcpServers": {}}`)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40, w.options(nil, nil))
	hs.keys("a")
	hs.waitText("Add a server")
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune(`{"args": []}`)})
	hs.waitText("the pasted text is not a server definition: \"-\" has neither")
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune(`{"pasted": {"command": "node", "args": ["p.js"]}}`)})
	hs.waitText("filled from the pasted JSON", "[pasted", "[node p.js")
	hs.keys("enter")
	hs.waitText("Configuration reloaded")
	if got := w.read(t); !strings.Contains(got, `"pasted": {`) {
		t.Fatalf("the file:\n%s", got)
	}
}

// A file that cannot be written keeps the form open with the reason.
func TestAddFormShowsWhyItDidNotSave(t *testing.T) {
	w := newManageWorld(t, `{"mcpServers": {}}`)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40, w.options(nil, nil))
	hs.keys("a")
	hs.waitText("Add a server")
	hs.keys("late", "tab", "tab", "true")
	os.WriteFile(w.path, []byte(`{"mcpServers": {"theirs": {"command": "x"},}`), 0o600) // broken meanwhile
	hs.keys("enter")
	hs.waitText("Add a server", "not saved: ", "is not valid JSON")
}

// b searches the registry, shows a server and opens the add form filled
// with its entry; saved, the file has the reference, not a secret.
func TestRegistryBrowserInstalls(t *testing.T) {
	srv := registrytest.New(t)
	reg, err := registry.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.CloseIdle()
	w := newManageWorld(t, `{"mcpServers": {}}`)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40, w.options(nil, reg))
	hs.keys("b")
	hs.waitText("MCP Registry", "search the registry")
	hs.keys("brave", "enter")
	hs.waitText("io.github.brave/brave-search-mcp-server", "1 server")
	hs.keys("enter")
	hs.waitText("runs as", "npm @brave/brave-search-mcp-server@2.0.58", "env BRAVE_API_KEY * secret — Your API key for the service")
	hs.keys("enter")
	hs.waitText("Add a server", "[brave-search-mcp-server", "BRAVE_API_KEY='${env:BRAVE_API_KEY}'", "set BRAVE_API_KEY")
	hs.keys("enter")
	hs.action("reload")
	if got := w.read(t); !strings.Contains(got, `"BRAVE_API_KEY": "${env:BRAVE_API_KEY}"`) || !strings.Contains(got, `"@brave/brave-search-mcp-server@2.0.58"`) {
		t.Fatalf("the file:\n%s", got)
	}
	// Back in the browser, then the reload's plan waiting its turn.
	hs.waitText("MCP Registry › io.github.brave/brave-search-mcp-server")
	hs.keys("esc", "esc")
	hs.waitText("Saved", "BRAVE_API_KEY is not set")
	hs.keys("esc")
	hs.waitText("Configuration reloaded")
	hs.keys("esc", "b", "enter")
	hs.waitText("7 servers", "io.github.modelcontextprotocol/server-time")
}

// Without Manage (an ad-hoc server, no file) the keys say why they do
// nothing; the built-in default cannot be edited.
func TestManageKeysExplainThemselves(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 35)
	hs.keys("a")
	hs.waitText("servers cannot be changed in this session")
	m := sizedModel(t, rt, 120, 35)
	m.opts.Reload = func() (*config.Config, error) { return &config.Config{}, nil }
	m.opts.Manage = &Manage{}
	snap := uitest.ReadySnapshot()
	snap.Servers[0].Scope, snap.Servers[0].Source = config.ScopeDefault, "<default mcp.json>"
	m.setSnapshot(snap)
	m.selectServer(0)
	m.Update(keyMsg("e"))
	if !strings.Contains(m.status, "in no file") {
		t.Errorf("e on the built-in default: %q", m.status)
	}
}

// Every key the registry browser and the form react to (where no text is
// being typed) is in their help bar.
func TestManageModalKeysAreInTheirHelp(t *testing.T) {
	t.Parallel()
	srv := registrytest.New(t)
	reg, _ := registry.New(srv.URL, nil)
	defer reg.CloseIdle()
	entries, err := reg.Search(context.Background(), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	contexts := map[string]func(m *Model) modal{
		"registry list": func(m *Model) modal {
			b := newRegistryBrowser(m.c, srv.URL)
			b.search = func(*registryBrowser, string, string) tea.Cmd { return nil }
			b.found(registryResultsMsg{b: b, page: entries})
			return b
		},
		"registry detail": func(m *Model) modal {
			b := newRegistryBrowser(m.c, srv.URL)
			b.install = func(*registryBrowser, registry.Entry, way) tea.Cmd { return nil }
			b.open(entries.Servers[0])
			return b
		},
		"form, a choice": func(m *Model) modal {
			f := m.newServerForm([]ManageFile{{Label: "a", Path: "/a"}, {Label: "b", Path: "/b"}}, nil)
			f.setFocus(1)
			return f
		},
	}
	for name, setup := range contexts {
		for _, k := range everyKey() {
			m := sizedModel(t, uitest.New(uitest.ReadySnapshot()), 120, 35)
			m.opts.Manage = &Manage{}
			md := setup(m)
			m.openModal(md)
			before, help := md.View(), md.Help()
			_, cmd := m.Update(k)
			if cmd == nil && md.View() == before && m.modal == md {
				continue
			}
			if !listed(append(help, m.c.keys.ForceQuit), k.String()) {
				t.Errorf("%s: %q does something but its help does not list it", name, k.String())
			}
		}
	}
}

// The reload a change starts reads the session's state (is MCP on?) when
// it is asked for, on the UI's goroutine, not from the command's: events
// keep replacing the snapshot meanwhile (go test -race caught it).
func TestReloadReadsStateOnTheUIGoroutine(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	m := sizedModel(t, rt, 120, 35)
	m.opts.Reload = func() (*config.Config, error) { return &config.Config{}, nil }
	cmd := m.reloadConfig()
	done := make(chan tea.Msg)
	go func() { done <- cmd() }()
	m.setSnapshot(uitest.ReadySnapshot()) // an event batch arriving meanwhile
	if msg, ok := (<-done).(reloadedMsg); !ok || msg.err != nil || msg.configured {
		t.Fatalf("the reload: %+v", msg)
	}
}

// esc during a try ends it: the copy of the server it started is not
// left running until its startup timeout.
func TestEscEndsATry(t *testing.T) {
	w := newManageWorld(t, `{"mcpServers": {}}`)
	started, ended := make(chan struct{}), make(chan error, 1)
	try := func(ctx context.Context, s config.Server) (string, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return "", ctx.Err()
	}
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40, w.options(try, nil))
	hs.keys("a", "slow", "tab", "tab", "sleep 100")
	hs.waitText("[sleep 100")
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlG})
	hs.waitText("trying slow…")
	<-started
	hs.keys("esc")
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the try ended with %v, not cancelled", err)
		}
	case <-time.After(waitWithin):
		t.Fatal("esc did not end the try")
	}
}
