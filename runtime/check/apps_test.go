package check

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// TestAppsServerPasses checks the pinned MCP Apps example server: its
// get-time tool's ui:// resource reads as an app, its _meta.ui is
// well-formed, it has no app-only tools; only its missing extension
// declaration warns (the reference servers do not declare it). Nothing
// fails.
func TestAppsServerPasses(t *testing.T) {
	node, script := jsonrpctest.AppsServer(t)
	srv := config.Server{Name: "basic", Transport: config.TransportStdio, Command: node, Args: []string{script, "--stdio"}, Enabled: true,
		StartupTimeout: time.Minute}
	rep := runCheck(t, srv, Options{CallTimeout: 10 * time.Second, StopGrace: time.Second})
	want := map[string]Status{IDAppResources: Pass, IDAppMetadata: Pass, IDAppOnlyTools: Pass, IDAppExtension: Warn}
	for id, st := range want {
		it, ok := rep.Item(id)
		if !ok || it.Status != st {
			t.Errorf("%s: %s %q, want %s", id, it.Status, it.Reason, st)
		}
	}
	if it, _ := rep.Item(IDAppResources); !strings.Contains(it.Reason, "1 app resource read as text/html;profile=mcp-app") {
		t.Errorf("app-resources says %q", it.Reason)
	}
	if rep.Failed() {
		t.Errorf("a good apps server failed the check")
	}
}

// TestAppsBrokenFails checks a fixture with a dangling resourceUri, a CSP
// origin that would inject a directive, and an app-only tool a model is
// told to call: each item fails, naming the tool.
func TestAppsBrokenFails(t *testing.T) {
	rep := runCheck(t, fake(jsonrpctest.AppsBroken), testOptions)
	for _, c := range []struct{ id, tool, says string }{
		{IDAppResources, `tool "show"`, "resources/read of its resourceUri ui://fake/missing.html failed"},
		{IDAppMetadata, `tool "chart"`, `connectDomains holds "https://api.example.com; script-src *"`},
		{IDAppOnlyTools, `tool "chart"`, `names app-only tool "refresh"`},
	} {
		it, ok := rep.Item(c.id)
		if !ok || it.Status != Fail || !strings.Contains(it.Reason, c.tool) || !strings.Contains(it.Reason, c.says) {
			t.Errorf("%s: %s %q, want FAIL naming %s: %s", c.id, it.Status, it.Reason, c.tool, c.says)
		}
	}
	if it, _ := rep.Item(IDCall); strings.Contains(it.Reason, "refresh") {
		t.Errorf("the call step called the app-only tool: %s", it.Reason)
	}
	if !rep.Failed() {
		t.Error("the broken apps server passed")
	}
}

// TestNoAppsNoAppItems: a server without apps gets no apps items.
func TestNoAppsNoAppItems(t *testing.T) {
	rep := runCheck(t, fake(jsonrpctest.Normal), testOptions)
	for _, id := range AppIDs() {
		if _, ok := rep.Item(id); ok {
			t.Errorf("a server without apps has item %s", id)
		}
	}
}

// TestCallStepSkipsAppOnly: the call step is a model's flow, so it never
// picks a tool only apps may call, however cheap it looks.
func TestCallStepSkipsAppOnly(t *testing.T) {
	tools := []runtime.Tool{
		{ServerTool: "ping_view", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`)},
		{ServerTool: "get", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://a"}}`)},
	}
	got, _ := callCandidates(tools)
	if len(got) != 1 || got[0].tool.ServerTool != "get" {
		t.Errorf("candidates %v, want only get", got)
	}
}
