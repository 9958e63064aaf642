package ui

import (
	"strings"
	"sync"
	"testing"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// approvals records what the UI approved, for tests.
type approvals struct {
	mu    sync.Mutex
	files []string
}

func (a *approvals) trust(f config.File) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.files = append(a.files, f.Path)
	return nil
}

func (a *approvals) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.files...)
}

// A reload of an approved project file whose content changed asks again,
// says which servers are new, applies nothing on no and keeps the old
// approval; on yes it saves the new approval and then reloads.
func TestReloadAsksAgainForAChangedProjectFile(t *testing.T) {
	t.Parallel()
	changed := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "new", Servers: []string{"broken", "filesystem"}}
	var ap approvals
	rt := uitest.New(uitest.ReadySnapshot())
	reads := 0
	var mu sync.Mutex
	hs := start(t, rt, 120, 35, func(o *Options) {
		o.Reload = func() (*config.Config, error) {
			mu.Lock()
			reads++
			mu.Unlock()
			return &config.Config{Files: []config.File{changed}}, nil
		}
		o.Pending = func(*config.Config) []config.File {
			if len(ap.list()) > 0 {
				return nil // approved: as the trust store would say
			}
			return []config.File{changed}
		}
		o.Trust = ap.trust
	})
	hs.keys("r")
	v := hs.waitText("Approve the changed project configuration?", "new servers: filesystem")
	if !strings.Contains(v, "broken") {
		t.Errorf("the dialog does not name the servers the file still defines:\n%s", v)
	}
	hs.keys("n")
	hs.waitText("reload cancelled")
	noAction(t, rt, "reload")
	if got := ap.list(); len(got) != 0 {
		t.Fatalf("declining saved an approval: %v", got)
	}

	hs.keys("r")
	hs.waitText("Approve the changed project configuration?")
	hs.keys("y")
	hs.action("reload")
	if got := ap.list(); len(got) != 1 || got[0] != changed.Path {
		t.Fatalf("approvals %v, want %s", got, changed.Path)
	}
	hs.waitText("Configuration reloaded")
	mu.Lock()
	defer mu.Unlock()
	if reads != 3 {
		t.Errorf("the configuration was read %d times, want 3: the approved file must be read again before the reload", reads)
	}
}

// After the person answered no to a project file, c does not run the
// check (which starts the server's command) on a server from it.
func TestCheckRefusesAnUnapprovedServer(t *testing.T) {
	t.Parallel()
	file := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "h", Servers: []string{"broken"}}
	rt := uitest.New(uitest.OffSnapshot())
	hs := start(t, rt, 120, 35, func(o *Options) {
		o.Untrusted = []config.File{file}
		o.Check = rt.Check
	})
	hs.waitText("Approve project configuration?")
	hs.keys("n")
	hs.waitText("MCP stays off")
	hs.keys("c") // broken, from the unapproved file, is selected
	hs.waitText("not checking broken")
	noAction(t, rt, "check broken")
	hs.keys("j", "c") // everything comes from the user's own file
	hs.action("check everything")
	hs.waitText("everything failed 1 check")
}

// A server whose configuration is invalid is shown as invalid with its
// file:line:col error, and never checked.
func TestInvalidServerShownWithItsError(t *testing.T) {
	t.Parallel()
	invalid := config.Errors{{Pos: config.Position{File: "/home/dev/proj/.mcp.json", Line: 3, Column: 41}, Server: "broken", Field: "timeout", Message: `"5 s" is not a duration`}}
	snap := uitest.ReadySnapshot()
	for i := range snap.Servers {
		if v := &snap.Servers[i]; v.Name == "broken" { // as the runtime shows a server whose config.Server.Invalid is set
			v.State, v.Note, v.Reason, v.LastError, v.Stderr = runtime.StateInvalid, invalid.Error(), "", nil, nil
		}
	}
	rt := uitest.New(snap)
	hs := start(t, rt, 140, 40, func(o *Options) { o.Check = rt.Check })
	v := hs.waitText("invalid", "/home/dev/proj/.mcp.json:3:41")
	if !strings.Contains(v, "⊘ broken") {
		t.Errorf("broken is not marked invalid:\n%s", v)
	}
	hs.keys("c")
	hs.waitText("its configuration is invalid")
	noAction(t, rt, "check broken")
}

// hostileProject is a project file whose servers carry terminal escapes
// and shell metacharacters in what they would run.
func hostileProject() (config.File, *config.Config) {
	const path = "/home/dev/proj/.mcp.json"
	file := config.File{Path: path, Scope: config.ScopeProject, Hash: "h", Unapproved: true, Servers: []string{"broken", "remote"}}
	cfg := &config.Config{
		Files: []config.File{file},
		Servers: []config.Server{
			{Name: "broken", Transport: config.TransportStdio, Command: "./bin/broken-server",
				Args: []string{"--title", "\x1b]0;pwned\x07", "rm -rf $HOME", "--token", "tok-0123456789abcdef0123456789"},
				Env:  map[string]string{"API_TOKEN": "tok-0123456789abcdef0123456789"},
				Cwd:  "/home/dev/proj/tools dir", EnvFile: "/home/dev/proj/.env", Enabled: true, Unapproved: true,
				Source: path, Scope: config.ScopeProject},
			{Name: "remote", Transport: config.TransportHTTP, URL: "https://mcp.example.com/\x1b[2Jmcp", Enabled: false, Unapproved: true,
				Source: path, Scope: config.ScopeProject},
		},
	}
	return file, cfg
}

// The approval dialog shows what each server of the file would run: the
// command line shell-quoted with its working directory and env file, the
// URL of a remote one; escapes in them are shown, never acted on.
func TestTrustDialogShowsWhatWouldRun(t *testing.T) {
	t.Parallel()
	file, cfg := hostileProject()
	rt := uitest.New(uitest.OffSnapshot())
	var leak string
	hs := start(t, rt, 120, 40, func(o *Options) {
		o.Untrusted = []config.File{file}
		o.Config = cfg
	})
	hs.p.mu.Lock()
	hs.p.onFrame = func(v string) {
		if where, bad := rawControl(v); bad && leak == "" {
			leak = where
		}
	}
	hs.p.mu.Unlock()
	hs.keys("m") // asks again: the frame is drawn under onFrame
	v := hs.waitText("Approve project configuration?",
		`run   ./bin/broken-server --title '\x1b]0;pwned\x07'`, `'rm -rf $HOME' --token ••••••`,
		`cwd   '/home/dev/proj/tools dir'`,
		`env   API_TOKEN (values hidden)`,
		`file  /home/dev/proj/.env (env file, read once approved)`,
		`remote (http) · disabled in the file`,
		`url   https://mcp.example.com/\x1b[2Jmcp`)
	if strings.Contains(v, "tok-0123456789abcdef") {
		t.Errorf("the dialog shows a secret:\n%s", v)
	}
	hs.p.mu.Lock()
	defer hs.p.mu.Unlock()
	if leak != "" {
		t.Fatalf("a frame carried a raw control character: %s", leak)
	}
}

// Without the configuration the dialog shows what the snapshot knows: the
// command line or URL.
func TestTrustDialogFromTheSnapshot(t *testing.T) {
	t.Parallel()
	file := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "h", Servers: []string{"broken"}}
	hs := start(t, uitest.New(uitest.OffSnapshot()), 120, 35, func(o *Options) { o.Untrusted = []config.File{file} })
	hs.waitText("Approve project configuration?", "broken (stdio)", "run   ./bin/broken-server --token ••••••")
}

// A reload's approval shows what the changed file would run now, and
// marks a server whose command changed, with what runs now.
func TestReloadTrustDialogShowsTheChangedCommand(t *testing.T) {
	t.Parallel()
	file, cfg := hostileProject()
	file.Servers = []string{"broken"}
	cfg.Files, cfg.Servers = []config.File{file}, cfg.Servers[:1]
	cfg.Servers[0].Args = []string{"--verbose"}
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 120, 40, func(o *Options) {
		o.Reload = func() (*config.Config, error) { return cfg, nil }
		o.Pending = func(*config.Config) []config.File { return []config.File{file} }
	})
	hs.keys("r")
	hs.waitText("Approve the changed project configuration?", "broken (stdio) changed",
		"run   ./bin/broken-server --verbose", "now   ./bin/broken-server --token ••••••")
}

// A dialog taller than the terminal scrolls its body; the answers stay.
func TestLongDialogScrolls(t *testing.T) {
	t.Parallel()
	file := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "h"}
	cfg := &config.Config{Files: []config.File{file}}
	for i := range 20 {
		name := "srv" + itoa(i)
		file.Servers = append(file.Servers, name)
		cfg.Servers = append(cfg.Servers, config.Server{Name: name, Transport: config.TransportStdio, Command: "run-" + name, Enabled: true, Source: file.Path})
	}
	hs := start(t, uitest.New(uitest.OffSnapshot()), 100, 24, func(o *Options) {
		o.Untrusted = []config.File{file}
		o.Config = cfg
	})
	v := hs.waitText("Approve project configuration?", "↑/↓ scroll", "y yes")
	if strings.Contains(v, "run-srv19") {
		t.Fatalf("the last server fits: the test shows nothing scrolling:\n%s", v)
	}
	for range 60 {
		hs.keys("j")
	}
	hs.waitText("run-srv19", "y yes")
}
