package cli

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The TUI takes --metrics: the session's metrics are served while it
// runs, and its logger never writes to the terminal.
func TestTUIServesMetrics(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{"mcpServers": {"demo": {"command": "true"}}}`)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	in, keys := io.Pipe()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--metrics", addr, "--log-level", "debug", "--root", w.project}, in, &out, &errOut)
	}()
	deadline := time.Now().Add(20 * time.Second)
	var body string
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && strings.Contains(string(b), "mcpdeck_") {
				body = string(b)
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	keys.Write([]byte("q"))
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("the TUI exited %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the TUI did not quit on q")
	}
	keys.Close()
	if body == "" {
		t.Fatalf("no metrics were served at %s while the TUI ran", addr)
	}
	if errOut.String() != "" {
		t.Errorf("the TUI wrote to stderr: %q", errOut.String())
	}
}

func TestGlobalFlagsAreChecked(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{"mcpServers": {"demo": {"command": "true"}}}`)
	for _, args := range [][]string{
		{"--log-level", "loud"},
		{"servers", "--log-level", "loud"},
		{"servers", "--root", " "},
		{"--metrics", "0.0.0.0:" + strconv.Itoa(9464)},
	} {
		code, _, stderr := w.run(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want %d", args, code, stderr, ExitUsage)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the TUI's writer and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
