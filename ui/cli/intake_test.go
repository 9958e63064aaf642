package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A server that reflects its env secret back (in its instructions, the era
// reason's server/discover error, a call result, a log and stderr) shows
// it in none of servers --json, call (human and --json) or a recording.
func TestReflectedSecretInNoFace(t *testing.T) {
	t.Parallel()
	const secret = "tok-reflected-cli-0123456789ab"
	h := newHeadless(t, map[string]map[string]any{"echo": srvFake(jsonrpctest.EchoSecret, jsonrpctest.WithSecret(secret))})
	rec := filepath.Join(h.dir, "session.jsonl")
	for _, args := range [][]string{
		{"servers", "--json"},
		{"servers"},
		{"call", "echo", "echo", `{"text":"hi"}`},
		{"call", "echo", "echo", `{"text":"hi"}`, "--json"},
		{"call", "echo", "fail", `{}`, "--json"},
		{"--record", rec, "call", "echo", "echo", `{"text":"hi"}`},
	} {
		r := h.run(t, "", args...)
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v (exit %d) shows the secret:\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		if args[0] == "call" && !strings.Contains(r.stdout, "(token ••••••)") {
			t.Errorf("%v: the result is not shown, scrubbed:\n%s", args, r.stdout)
		}
		if args[0] == "servers" && args[len(args)-1] == "--json" && !strings.Contains(r.stdout, "server/discover (token ••••••)") {
			t.Errorf("servers --json does not show the era reason, scrubbed:\n%s", r.stdout)
		}
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), "Use the token ••••••") {
		t.Errorf("the recording shows the secret, or not the instructions scrubbed")
	}
}
