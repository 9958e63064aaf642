package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/suite"
	"mcpdeck/ui/uitest"
)

// callEcho makes one call from the Tools tab and opens the call history.
func callEcho(t *testing.T, hs *harness) {
	t.Helper()
	hs.keys("j", "2", "tab", "j", "j", "enter") // everything › echo
	hs.waitText("Call everything › echo")
	hs.keys("h", "i", "enter")
	hs.action(`call everything echo {"message":"hi"}`)
	hs.waitText("Result of everything › echo")
	hs.keys("esc", "3")
	hs.waitText("history · 1 call")
}

// T on a past call appends it to a suite file, expecting its result: the
// snapshot and the fields chosen; the file then parses and holds them.
func TestAddCallToSuite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the default suite file is under the working directory
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 120, 35)
	callEcho(t, hs)
	hs.keys("T")
	hs.waitText("Add to a test suite", "suite file  mcp-tests/everything.mcptest.yaml", "[x] snapshot of the whole result",
		`[ ] $.content[0].text = "echo: {\"message\":\"hi\"}"`)
	hs.keys("tab", "j", " ", "enter")
	hs.waitText("added step echo to mcp-tests/everything.mcptest.yaml")

	s, err := suite.ParseFile(filepath.Join(dir, "mcp-tests", "everything.mcptest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Steps[0]
	if s.Server.Name != "everything" || len(s.Steps) != 1 || st.Kind != suite.KindCall || st.Target != "echo" ||
		!st.Expect.Snapshot || len(st.Expect.Equals) != 1 || st.Expect.Equals[0].Path != "$.content[0].text" ||
		st.Expect.Equals[0].Value != `echo: {"message":"hi"}` {
		t.Errorf("suite = %+v, step = %+v", s, st)
	}
	if args, _ := st.Args.(map[string]any); args["message"] != "hi" {
		t.Errorf("arguments = %v", st.Args)
	}
	snap, err := os.ReadFile(s.SnapshotPath)
	if err != nil || !strings.Contains(string(snap), `"echo": {`) || !strings.Contains(string(snap), `"text": "echo: {\"message\":\"hi\"}"`) {
		t.Errorf("snapshot: %v\n%s", err, snap)
	}

	// Nothing chosen: the dialog says so and writes nothing.
	hs.keys("T")
	hs.waitText("Add to a test suite")
	hs.keys("tab", " ", "enter")
	hs.waitText("choose the snapshot or at least one field to expect")
	hs.keys("esc")
	if again, _ := suite.ParseFile(s.Path); len(again.Steps) != 1 {
		t.Errorf("a step was added with nothing to expect: %d steps", len(again.Steps))
	}

	// Another file, typed in the dialog: the second call of echo gets an id
	// of its own there too.
	hs.keys("T")
	hs.waitText("Add to a test suite")
	for range len("mcp-tests/everything.mcptest.yaml") {
		hs.keys("backspace")
	}
	hs.keys("other.mcptest.yaml", "enter")
	hs.waitText("added step echo to other.mcptest.yaml")
	if _, err := suite.ParseFile(filepath.Join(dir, "other.mcptest.yaml")); err != nil {
		t.Error(err)
	}
}

func TestGoldenAddToSuite(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		// Nothing is written: the dialog stays open.
		hs := start(t, uitest.New(uitest.ReadySnapshot()), w, h)
		callEcho(t, hs)
		hs.keys("T")
		hs.waitText("Add to a test suite")
		hs.keys("tab", "j", " ")
		v := hs.waitText("Add to a test suite", "[x] $.content[0].text")
		golden.RequireEqual(t, []byte(v))
	})
}

// A call answered with a JSON-RPC error becomes a step expecting that
// error; one that never got an answer cannot become a step.
func TestAddFailedCallToSuite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	rt := uitest.New(uitest.ReadySnapshot())
	rt.CallFunc = func(_ context.Context, req runtime.CallRequest) (*runtime.Result, error) {
		return nil, &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindProtocol, Server: req.Server, Method: "tools/call",
			Code: -32602, Message: "unknown tool: echo (try again?)"}}
	}
	hs := start(t, rt, 120, 35)
	hs.keys("j", "2", "tab", "j", "j", "enter")
	hs.waitText("Call everything › echo")
	hs.keys("h", "i", "enter")
	hs.action(`call everything echo {"message":"hi"}`)
	hs.keys("esc", "esc", "3")
	hs.waitText("history · 1 call")
	hs.keys("T")
	hs.waitText("Add to a test suite", "expects the error -32602: unknown tool: echo (try again?)")
	hs.keys("enter")
	hs.waitText("added step echo to mcp-tests/everything.mcptest.yaml")
	s, err := suite.ParseFile(filepath.Join(dir, "mcp-tests", "everything.mcptest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e := s.Steps[0].Expect.Error
	if e == nil || e.Code == nil || *e.Code != -32602 || e.Message != `^unknown tool: echo \(try again\?\)$` {
		t.Errorf("error expectation = %+v", e)
	}
}

// T on a call of an ad-hoc server (--stdio or --url: no configuration
// names it) writes the suite with the server inline, its command as the
// session ran it, as mcpdeck test --from-recording does: "server: adhoc"
// named a server no configuration has, so the suite could not run.
func TestAddCallOfAnAdHocServerToSuite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	adhoc := config.Server{Name: "everything", Source: config.SourceCommandLine, Transport: config.TransportStdio,
		Command: "node", Args: []string{"server-everything.js", "stdio"}, Env: map[string]string{"TOKEN": "secret"}}
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 120, 35, func(o *Options) {
		o.Config = &config.Config{Servers: []config.Server{adhoc}}
	})
	callEcho(t, hs)
	hs.keys("T")
	hs.waitText("Add to a test suite")
	hs.keys("enter")
	hs.waitText("added step echo to mcp-tests/everything.mcptest.yaml")
	s, err := suite.ParseFile(filepath.Join(dir, "mcp-tests", "everything.mcptest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if in := s.Server.Inline; in == nil || in.Command != "node" || strings.Join(in.Args, " ") != "server-everything.js stdio" || len(in.Env) != 0 {
		t.Errorf("the suite's server is %+v (inline %+v), want node server-everything.js stdio inline, without its env", s.Server, s.Server.Inline)
	}
	// A second step goes to the same suite: its inline server is this one.
	hs.keys("T")
	hs.waitText("Add to a test suite")
	hs.keys("enter")
	hs.waitText("added step echo-2 to mcp-tests/everything.mcptest.yaml")
}

// A suite that names its server finds it in the configuration: when the
// session was started with --config, the command the status line offers
// to run the suite carries those files (without them mcpdeck test
// discovers another configuration, where that name may be another server
// or none; found by the stranger pass).
func TestAddCallToSuiteSaysHowToRunItWithTheSessionsConfig(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	file := filepath.Join(dir, "my servers.json")
	everything := config.Server{Name: "everything", Source: file, Scope: config.ScopeExplicit, Transport: config.TransportStdio,
		Command: "node", Args: []string{"server-everything.js", "stdio"}}
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 320, 35, func(o *Options) {
		o.Config = &config.Config{Servers: []config.Server{everything}, Files: []config.File{{Path: file, Scope: config.ScopeExplicit}}}
	})
	callEcho(t, hs)
	hs.keys("T")
	hs.waitText("Add to a test suite")
	hs.keys("enter")
	hs.waitText("run it with: mcpdeck --config '" + file + "' test mcp-tests/everything.mcptest.yaml")
}
