//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
// and the whole size), stderr and its own peak resident memory: VmHWM
// from /proc, read until it exits. (wait4's peak would count the servers
// it reaped too, whose size says nothing of mcpdeck's.) The peak is
// reached while mcpdeck lists and prints, before it stops its server, so
// a read lands after it.
func runMeasured(t *testing.T, h *headless, args ...string) (out *countingWriter, stderr string, peak int64, code int) {
	t.Helper()
	cmd, cancel := binCommand(t, 2*time.Minute, append([]string{"--config", h.cfg}, args...)...)
	defer cancel()
	cmd.Dir = h.dir
	cmd.Env = testEnv(t, h.env...)
	out = &countingWriter{}
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("running mcpdeck %v: %v", args, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var err error
	for waiting := true; waiting; {
		peak = max(peak, highWaterMark(status))
		select {
		case err = <-exited:
			waiting = false
		case <-tick.C:
		}
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpdeck %v: %v", args, err)
	}
	if peak == 0 {
		t.Fatalf("mcpdeck %v exited before its memory could be read from %s", args, status)
	}
	return out, errb.String(), peak, code
}

// highWaterMark is the VmHWM line of a /proc/PID/status file in bytes;
// 0 once the process is gone (a zombie has no memory to report).
func highWaterMark(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
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
	// mcpdeck's own peak is about 50 MB here; the unbounded printing this
	// guards against took 1 GB.
	const maxOut, maxRSS = 256 << 10, 256 << 20
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
