package cli

import (
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestServersListsDisabled: servers lists every configured server; a
// disabled one (in its file, or in Claude Code's disabledServers list
// through mcpdeck disable) is shown as disabled, not started, and is no
// failure. Naming it still starts it.
func TestServersListsDisabled(t *testing.T) {
	t.Parallel()
	off := srvFake(jsonrpctest.Normal)
	off["disabled"] = true
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0"), "off": off})

	r := h.run(t, "", "servers", "--json")
	wantCode(t, r, ExitOK)
	got := map[string]serverStatusJSON{}
	for _, s := range decodeServers(t, r).Servers {
		got[s.Name] = s
	}
	if len(got) != 2 || got["demo"].State != "ready" {
		t.Fatalf("servers --json listed %+v, want demo ready and off disabled", got)
	}
	if s := got["off"]; s.State != "disabled" || s.PID != 0 || s.PingMs != nil || s.Error != "" {
		t.Fatalf("the disabled server is reported %+v, want state disabled, not started, no error", s)
	}

	r = h.run(t, "", "servers")
	wantCode(t, r, ExitOK)
	if !hasRow(r.stdout, "off", "disabled") || !hasRow(r.stdout, "demo", "ready") {
		t.Fatalf("the table does not list both servers:\n%s", r.stdout)
	}

	// Only disabled servers: listed, and stderr says none is enabled.
	h = newHeadless(t, map[string]map[string]any{"off": off})
	r = h.run(t, "", "servers")
	wantCode(t, r, ExitOK)
	if !hasRow(r.stdout, "off", "disabled") || !strings.Contains(r.stderr, "no enabled server") {
		t.Fatalf("a configuration of disabled servers printed:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	// Named, it is started: naming a server is an explicit request.
	r = h.run(t, "", "servers", "off", "--json")
	wantCode(t, r, ExitOK)
	if out := decodeServers(t, r); len(out.Servers) != 1 || out.Servers[0].State != "ready" {
		t.Fatalf("servers off reported %+v, want it started", out.Servers)
	}
}

// hasRow reports whether a table has a row whose first two cells are name
// and state.
func hasRow(table, name, state string) bool {
	for _, row := range strings.Split(table, "\n") {
		if f := strings.Fields(row); len(f) > 1 && f[0] == name && f[1] == state {
			return true
		}
	}
	return false
}
