package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
)

// A stdio server that writes only non-JSON on stdout (a banner, a web
// server's "listening on…") never answers: its failure names the line it
// printed (quoted, cut), and says where such output belongs, instead of a
// bare "not ready within the startup timeout".
func TestStartupTimeoutNamesTheNoise(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 500)
	srv := config.Server{Name: "noisy", Transport: config.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", `printf 'Server listening on http://localhost:3000\033[0m\n%s\n' "$LONG"; exec sleep 30`},
		Env:  map[string]string{"LONG": "tail-" + long}, Enabled: true,
		StartupTimeout: 1500 * time.Millisecond, CallTimeout: time.Second}
	c := newController(t, srv)
	rec := record(t, c)
	if err := c.SetEnabled(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	rec.waitAny(t, "failed", stateIs("noisy", StateFailed))
	v := serverOf(t, c, "noisy")
	msg := v.LastError.Message
	for _, want := range []string{"not ready within the startup timeout", "2 lines that are not JSON-RPC", `"tail-xxx`, "…", "stderr"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\033") || len(msg) > 600 {
		t.Errorf("the failure is not sanitised and cut: %q", msg)
	}
}
