package check

import (
	"regexp"
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// TestEverythingPagesAlike: the tools-list item counts the pages of the
// listing it judged, whatever else the server made the client list. The
// TUI's check declares sampling, and server-everything then adds a tool
// after the handshake and says so (tools/list_changed), so the session
// lists again; the CLI's check does not. Both said "over N pages", N
// counting every tools/list sent: the TUI said 2 pages, the CLI 1, for
// one page each time.
func TestEverythingPagesAlike(t *testing.T) {
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script}, Enabled: true}
	pages := regexp.MustCompile(`^(\d+) tools over (\d+) pages?;`)
	reasons := map[string][]string{}
	for name, opts := range map[string]Options{
		"cli": testOptions,
		"tui": func() Options { o := testOptions; o.Sampler = runtime.DeclineSampler{}; return o }(),
	} {
		rep := runCheck(t, srv, opts)
		it, _ := rep.Item(IDToolsList)
		m := pages.FindStringSubmatch(it.Reason)
		if m == nil {
			t.Fatalf("%s: tools-list says %q, want a count of tools and pages", name, it.Reason)
		}
		reasons[name] = m[1:]
	}
	if got := reasons["cli"][1]; got != "1" {
		t.Errorf("the CLI's check counts %s pages, want 1: server-everything lists its tools in one page", got)
	}
	if reasons["tui"][1] != reasons["cli"][1] {
		t.Errorf("the TUI's check counts %s pages, the CLI's %s, on the same server", reasons["tui"][1], reasons["cli"][1])
	}
}
