// Package daemontest runs a real external server for the length of a test
// (Prometheus for fleettest, the OpenTelemetry Collector for otelcoltest):
// started with its output kept for failure messages, waited for until it
// answers, stopped when the test ends, and killed with the test binary
// if that dies first, so no run leaves a server behind.
package daemontest

import (
	"bytes"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"mcpdeck/internal/porttest"
)

// outputLimit bounds the output kept for failure messages.
const outputLimit = 1 << 20

// Daemon is a running external server.
type Daemon struct {
	name   string // for messages: "prometheus", "the collector"
	cmd    *exec.Cmd
	exited chan struct{}

	mu  sync.Mutex
	out bytes.Buffer
}

// Start runs bin with args until t ends; name is what messages call it.
// At the end it is sent SIGTERM, and SIGKILL when it has not exited 10s
// later.
func Start(t testing.TB, name, bin string, args ...string) *Daemon {
	t.Helper()
	d := &Daemon{name: name, cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	d.cmd.Stdout, d.cmd.Stderr = d, d
	dieWithParent(d.cmd)
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = d.cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		_ = d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			_ = d.cmd.Process.Kill()
			<-d.exited
		}
	})
	return d
}

// WaitReady asks probe every 100ms until it answers 200 OK, and fails the
// test, quoting the server's output, when the server exits first or
// within runs out.
func (d *Daemon) WaitReady(t testing.TB, within time.Duration, probe func(*http.Client) (*http.Response, error)) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(within)
	for {
		resp, err := probe(client)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-d.exited:
			t.Fatalf("%s exited before it was ready:\n%s", d.name, d.Output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not ready in %s:\n%s", d.name, within, d.Output())
		}
	}
}

// Write collects the server's output, for failure messages.
func (d *Daemon) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out.Len() < outputLimit {
		d.out.Write(b)
	}
	return len(b), nil
}

// Output is what the server printed so far.
func (d *Daemon) Output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// FreePort returns a loopback port that was free a moment ago, for a
// server that cannot report the one it picked: one outside the kernel's
// ephemeral range (porttest.Free), so no other socket takes it before the
// server binds it.
func FreePort(t testing.TB) int {
	t.Helper()
	return porttest.Free(t)
}
