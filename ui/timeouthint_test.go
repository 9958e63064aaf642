package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// TestTimeoutStatusLineHasTheHint: a call to a server that never
// answers ends in the status line with the timeout's hint (raise
// callTimeout), as the command line's error has it (--timeout). The
// status line and the result viewer used to show the bare "timed out"
// message: the hint was worded for the TUI (ui/present) but neither
// found it (the viewer looked for an *ErrorInfo where a call returns a
// *CallError).
func TestTimeoutStatusLineHasTheHint(t *testing.T) {
	t.Parallel()
	path, args, _ := jsonrpctest.Command(jsonrpctest.Hang)
	hang := config.Server{Name: "hang", Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.Hang), Enabled: true, StartupTimeout: 20 * time.Second,
		CallTimeout: 300 * time.Millisecond, PingInterval: time.Minute}
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{hang}}}, 140, 40)

	// The status line as the model holds it, read on the program's
	// goroutine after every update: a long one wraps over rows.
	var status string
	hs.p.mu.Lock()
	hs.p.onFrame = func(string) { status = hs.p.m.status }
	hs.p.mu.Unlock()
	statusHas := func(what string, texts ...string) string {
		t.Helper()
		var s string
		hs.waitView(what, func(string) bool {
			hs.p.mu.Lock()
			s = status
			hs.p.mu.Unlock()
			for _, x := range texts {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		})
		return s
	}

	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	srv, ok := rt.Snapshot().Server("hang")
	if !ok || len(srv.Tools) == 0 {
		t.Fatalf("the hang server lists no tools: %+v", srv)
	}
	hs.tm.Send(callIntentMsg{tool: srv.Tools[0], args: json.RawMessage(`{"text":"x"}`)})
	want := present.Hint(&runtime.ErrorInfo{Kind: runtime.KindTimeout}, present.TUI)
	if want == "" {
		t.Fatal("the TUI has no words for a timeout")
	}
	// The result viewer words it the same way.
	hs.waitText("✗ the call failed", "timed out after 300ms", "hint: "+want)
	s := statusHas("the timeout in the status line", "failed:", want)
	if !strings.Contains(s, "300ms") {
		t.Errorf("the status line does not say which bound ran out: %q", s)
	}
}
