//go:build linux

package runtime

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A server that starts a helper in a session of its own (setsid, as a
// detached spawn does) hands it its stdio: when the server then crashes,
// the helper still holds the write end of its stdout, which never reads
// EOF. The crash must end the connection all the same, and the server
// must read as failed with its exit, not stay "ready" until pings fail.
func TestCrashWithEscapedDescendantHoldingStdout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid(1) (util-linux)")
	}
	pidFile := filepath.Join(t.TempDir(), "helper.pid")
	srv := fakeServer("c", jsonrpctest.CrashOnCall)
	srv.Args = append([]string{"-c", `setsid sleep 60 & echo $! > "$PIDFILE"; exec "$0" "$@"`, srv.Command}, srv.Args...)
	srv.Command = "/bin/sh"
	srv.Env["PIDFILE"] = pidFile
	srv.PingInterval = time.Hour // the crash, not missed pings, must end it
	c := newController(t, srv)
	enable(t, c)
	t.Cleanup(func() {
		b, _ := os.ReadFile(pidFile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	rec := record(t, c)
	_, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "c", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	if !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "status 3") {
		t.Fatalf("call during the crash: %v; want the connection closed with the exit status", err)
	}
	e := rec.waitFor(t, "failed", stateIs("c", StateFailed)).(StateChanged)
	if !strings.Contains(e.Reason, "status 3") {
		t.Fatalf("failure reason %q does not carry the exit status", e.Reason)
	}
}
