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
	changed := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "new", Servers: []string{"broken", "filesystem"}}
	pending := []config.File{changed}
	var mu sync.Mutex
	var ap approvals
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 35, func(o *Options) {
		o.Reload = func() (*config.Config, error) { return &config.Config{Files: []config.File{changed}}, nil }
		o.Pending = func(*config.Config) []config.File {
			mu.Lock()
			defer mu.Unlock()
			return pending
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
}

// After the person answered no to a project file, c does not run the
// check (which starts the server's command) on a server from it.
func TestCheckRefusesAnUnapprovedServer(t *testing.T) {
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
