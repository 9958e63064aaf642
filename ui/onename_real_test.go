package ui

import (
	"strings"
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// The status line and the result viewer of a failed call name the server
// once: "s/crash failed: s: tools/call: …" said s twice (the line's
// server/tool, then the error's own prefix), as did the viewer under its
// title "Result of s › crash".
func TestFailedCallStatusNamesTheServerOnce(t *testing.T) {
	t.Parallel()
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{fakeProcess("s", jsonrpctest.Normal, config.Reconnect{})}}}, 200, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	v, _ := rt.Snapshot().Server("s")
	tool, ok := runtime.LookupTool(v.Tools, "crash")
	if !ok {
		t.Fatalf("the fake has no crash tool: %+v", v.Tools)
	}
	hs.tm.Send(callIntentMsg{tool: *tool})
	view := hs.waitText("s/crash failed: tools/call:", "Result of s › crash", "✗ the call failed")
	if strings.Contains(view, "failed: s: ") || strings.Contains(view, "s: tools/call:") {
		t.Errorf("the status line or the result viewer names s twice:\n%s", view)
	}
	// Said once, the error keeps the hint its kind suggests.
	hs.waitText("(the server process exited; its last stderr lines are in the Logs tab)")
}
