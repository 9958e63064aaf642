//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServersThousandHangingStarts (issue 29): 1,000 stdio servers that
// never answer, each with a 2s startup timeout. mcpdeck servers --json
// reports every one failed, of the startup timeout, and none still
// starting (the report waits for every start to be decided, and a
// one-shot command does not retry); no server process is left behind.
func TestServersThousandHangingStarts(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("this test needs sleep(1): %v", err)
	}
	const n = 1000
	servers := map[string]map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%04d", i)] = map[string]any{"command": sleep, "args": []string{"3600"}, "startupTimeout": "2s"}
	}
	h := newHeadless(t, servers) // its cleanup fails the test for any server process left
	start := time.Now()
	r := h.run(t, "", "servers", "--json")
	t.Logf("mcpdeck servers --json with %d hanging servers took %v", n, time.Since(start).Round(10*time.Millisecond))
	if r.code != ExitTimeout {
		t.Errorf("exit status %d, want %d (every start timed out); stderr:\n%.2000s", r.code, ExitTimeout, r.stderr)
	}
	var out serversOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("servers --json: %v\n%.2000s", err, r.stdout)
	}
	if len(out.Servers) != n {
		t.Fatalf("reported %d servers, want %d", len(out.Servers), n)
	}
	states := map[string]int{}
	bad := 0
	for _, s := range out.Servers {
		states[s.State]++
		if s.State != "failed" || !strings.Contains(s.Error, "not ready within the startup timeout of 2s") {
			if bad++; bad <= 5 {
				t.Errorf("%s: %s: %q", s.Name, s.State, s.Error)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d servers did not end failed of the startup timeout: %v", bad, n, states)
	}
}
