//go:build unix

package gateway

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The control socket lists the waiting calls and decides them; it is
// its owner's alone, a stale one is replaced, a live one is not taken.
func TestControlSocket(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{Config: gatewayConfig(t, `{"tools": {"approve": ["peer__echo"]}}`)})
	dir := filepath.Join(t.TempDir(), "run")
	path := filepath.Join(dir, "gateway.sock")
	l, err := ListenControl(path)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600 | os.ModeSocket} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Fatalf("%s: %v %v, want %v", p, fi.Mode(), err, want)
		}
	}
	if _, err := ListenControl(path); err == nil || !strings.Contains(err.Error(), "in use by another gateway") {
		t.Fatalf("a second gateway on the same socket: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.ServeControl(ctx, l) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("the socket outlived its gateway: %v", err)
		}
	}()

	asked, _ := approvalEvents(t, g)
	cs := connect(t, goClient("ctl-client", newClientEvents()), pipeTransport(t, g), "legacy")
	cctx := ctxFor(t, 30*time.Second)
	for _, tc := range []struct {
		op, want string
	}{{"approve", "first"}, {"deny", ""}} {
		out := callAsync(cctx, cs, "peer__echo", map[string]any{"text": "first"})
		id := waitFor(t, "the approval", asked, nil).Approval.ID
		resp, err := Control(cctx, path, ControlRequest{Op: "pending"})
		if err != nil || resp.Error != "" || len(resp.Pending) != 1 || resp.Pending[0].ID != id || resp.PID != os.Getpid() {
			t.Fatalf("pending: %+v %v", resp, err)
		}
		if resp, err := Control(cctx, path, ControlRequest{Op: tc.op, ID: "nope-1"}); err != nil || !resp.Unknown {
			t.Fatalf("an unknown id: %+v %v", resp, err)
		}
		resp, err = Control(cctx, path, ControlRequest{Op: tc.op, ID: id, By: "the test", Reason: "because"})
		if err != nil || resp.Error != "" || len(resp.Pending) != 0 {
			t.Fatalf("%s: %+v %v", tc.op, resp, err)
		}
		o := <-out
		if tc.want != "" && (o.err != nil || textOf(o.res) != tc.want) {
			t.Fatalf("approved: %v %+v", o.err, o.res)
		}
		if tc.want == "" && (o.err == nil || !strings.Contains(o.err.Error(), "because")) {
			t.Fatalf("denied: %v %+v", o.err, o.res)
		}
	}
	if resp, err := Control(cctx, path, ControlRequest{Op: "launch"}); err != nil || !strings.Contains(resp.Error, `unknown op "launch"`) {
		t.Fatalf("bad op: %+v %v", resp, err)
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("not json\n"))
	buf := make([]byte, 512)
	n, _ := c.Read(buf)
	c.Close()
	if !strings.Contains(string(buf[:n]), "not JSON") {
		t.Fatalf("garbage: %s", buf[:n])
	}
}

func TestControlSocketStaleIsReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // a crashed gateway's leftover: the file, nobody behind it
	l, err = ListenControl(path)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	l.Close()
}
