package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/check"
	"mcpdeck/ui/present"
)

// TestTryCountsTheToolsTheTUIShows: the add form's ctrl+g and the check
// (c) start copies of a server with the session's options, taken before
// the TUI attaches its dialogs. server-everything lists its elicitation
// and sampling tools only to a client that declares those capabilities,
// so the try said 13 tools and the check 14 where the Tools tab showed 15
// for the same server (found by qa3).
func TestTryCountsTheToolsTheTUIShows(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node,
		Args: []string{script, "stdio"}, Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// What the TUI's session lists: its options, then ui.Attach's dialogs.
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}, Eras: runtime.NewEraMemory()})
	rt.SetElicitor(runtime.DeclineElicitor{})
	rt.SetSampler(runtime.DeclineSampler{})
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	v, _ := rt.Snapshot().Server("everything")
	shutdownRuntime(rt)
	names := map[string]bool{}
	for _, tool := range v.Tools {
		names[tool.ServerTool] = true
	}
	if !names["trigger-elicitation-request"] || !names["trigger-sampling-request"] {
		t.Fatalf("the TUI's session should list the elicitation and sampling tools; it listed %d: %v", len(v.Tools), names)
	}

	summary, err := tryServer(ctx, srv, runtime.Options{Eras: runtime.NewEraMemory()})
	if err != nil {
		t.Fatal(err)
	}
	want := present.Count(len(v.Tools), "tool", "tools")
	if !strings.Contains(summary, want) {
		t.Errorf("the try said %q; the TUI shows %s for the same server", summary, want)
	}
	rep := check.Run(ctx, srv, tuiCheckOptions(runtime.Options{Eras: runtime.NewEraMemory()}), nil)
	if it, _ := rep.Item(check.IDToolsList); !strings.HasPrefix(it.Reason, want+" over ") {
		t.Errorf("the TUI's check said %q; the TUI shows %s for the same server", it.Reason, want)
	}
}
