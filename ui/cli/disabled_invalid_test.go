package cli

import (
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A server the configuration disables is not started, so what it would
// need to start (a variable nobody set, as `mcpdeck add --env TOKEN=…`
// leaves for the person to set) makes no failure of a command that did not
// name it: `servers` lists it with its problem and exits 0. Naming it
// starts it, and then its problem is the command's failure.
func TestDisabledServerWithUnsetVariableIsNoFailure(t *testing.T) {
	t.Parallel()
	gh := srvFake(jsonrpctest.Normal)
	gh["env"] = map[string]string{"GITHUB_TOKEN": "${env:QA6_UNSET_GITHUB_TOKEN}"}
	gh["disabled"] = true
	h := newHeadless(t, map[string]map[string]any{"ok": srvFake(jsonrpctest.Normal), "gh": gh})
	r := h.run(t, "", "servers")
	if r.code != ExitOK {
		t.Errorf("servers: exit %d, want 0: the invalid server is disabled and was not named\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "gh    invalid") || !strings.Contains(r.stderr, "QA6_UNSET_GITHUB_TOKEN") {
		t.Errorf("servers does not list the disabled server, and say its problem:\n%s%s", r.stdout, r.stderr)
	}
	if r := h.run(t, "", "servers", "gh"); r.code != ExitUsage || !strings.Contains(r.stderr, "QA6_UNSET_GITHUB_TOKEN") {
		t.Errorf("servers gh: exit %d, want %d naming the unset variable\n%s", r.code, ExitUsage, r.stderr)
	}
}
