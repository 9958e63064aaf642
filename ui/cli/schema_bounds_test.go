//go:build linux

package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/schema"
)

// countingWriter keeps the first bytes written and counts the rest, so a
// runaway output costs the test nothing.
type countingWriter struct {
	head []byte
	n    int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if room := 1<<20 - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(room, len(p))]...)
	}
	w.n += len(p)
	return len(p), nil
}

// runMeasured runs the built binary and reports its stdout (the first MiB
// and the whole size), stderr and peak resident memory.
func runMeasured(t *testing.T, h *headless, args ...string) (out *countingWriter, stderr string, maxRSS int64, code int) {
	t.Helper()
	cmd, cancel := binCommand(t, 2*time.Minute, append([]string{"--config", h.cfg}, args...)...)
	defer cancel()
	cmd.Dir = h.dir
	cmd.Env = testEnv(t, h.env...)
	out = &countingWriter{}
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpdeck %v: %v", args, err)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return out, errb.String(), ru.Maxrss * 1024, code
}

// A tool whose input schema nests 9,800 levels (186 KB, just under what
// the JSON decoder takes) was refused for validation but printed whole:
// 240 MB of `tools --json`, about 1 GB of memory, all of it indentation.
// The schema is printed up to a bound and stands as a marker past it; the
// output and the memory stay small, and the tool detail says why.
func TestToolsJSONBoundsAHostileSchema(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"fake": srvFake(jsonrpctest.DeepSchema, jsonrpctest.WithDepth(4900))})
	out, stderr, rss, code := runMeasured(t, h, "tools", "--json")
	if code != ExitOK {
		t.Fatalf("tools --json exited %d: %s", code, stderr)
	}
	const maxOut, maxRSS = 256 << 10, 200 << 20
	if out.n > maxOut || rss > maxRSS {
		t.Fatalf("tools --json printed %d bytes with a peak of %d MB resident; want under %d bytes and %d MB", out.n, rss>>20, maxOut, maxRSS>>20)
	}
	t.Logf("tools --json: %d bytes, peak %d MB resident", out.n, rss>>20)
	var list struct {
		Tools []struct {
			Tool        string
			InputSchema map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(out.head, &list); err != nil {
		t.Fatalf("tools --json is not JSON: %v", err)
	}
	found := false
	for _, tl := range list.Tools {
		if tl.Tool != "deep" {
			continue
		}
		found = true
		var m struct {
			Bytes, Nesting int
			Reason         string
		}
		err := json.Unmarshal(tl.InputSchema[schema.OmittedKey], &m)
		if err != nil || m.Nesting != 9801 || m.Bytes < 180_000 || !strings.Contains(m.Reason, "levels deep") {
			t.Errorf("the deep tool's inputSchema: %s (%v); want the %s marker with its size and nesting", tl.InputSchema, err, schema.OmittedKey)
		}
	}
	if !found {
		t.Fatalf("the deep tool is not listed:\n%s", out.head)
	}

	out, stderr, rss, code = runMeasured(t, h, "tools", "fake", "deep")
	if code != ExitOK || out.n > maxOut || rss > maxRSS {
		t.Fatalf("tools fake deep: exit %d, %d bytes, %d MB: %s", code, out.n, rss>>20, stderr)
	}
	for _, want := range []string{"not shown", "9,801 levels deep", "tools --json"} {
		if !strings.Contains(string(out.head), want) {
			t.Errorf("the tool detail lacks %q:\n%s", want, out.head)
		}
	}
}
