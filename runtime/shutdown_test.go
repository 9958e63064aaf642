package runtime

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestShutdownAfterCancelledContext: a Shutdown whose ctx is already
// cancelled still requests the teardown (it only does not wait for it),
// so the next Shutdown returns once the teardown is done. Before, the
// cancelled Shutdown consumed the controller's Once without enqueuing
// the command in about half the runs, and every later Shutdown waited
// forever.
func TestShutdownAfterCancelledContext(t *testing.T) {
	t.Parallel()
	const n = 40
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			c := New(Options{Config: &config.Config{}})
			if err := c.Shutdown(cancelled); err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
			}
			ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			if err := c.Shutdown(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		failed++
		if failed == 1 {
			t.Errorf("a Shutdown after one with a cancelled ctx: %v", err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d controllers never shut down after a Shutdown with a cancelled ctx", failed, n)
	}
}

// TestShutdownWithCancelledContextStillTearsDown: the teardown a cancelled
// Shutdown requests happens: the server process is gone once a later
// Shutdown returns, and commands are refused.
func TestShutdownWithCancelledContextStillTearsDown(t *testing.T) {
	t.Parallel()
	c := New(Options{Config: &config.Config{Servers: []config.Server{fakeServer("a", jsonrpctest.Normal)}}, StopGrace: 500 * time.Millisecond})
	enable(t, c)
	pid := serverOf(t, c, "a").PID
	if pid <= 0 {
		t.Fatalf("server a has no pid")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_ = c.Shutdown(cancelled)
	if err := c.Shutdown(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
	if !jsonrpctest.ProcessGone(pid) {
		t.Errorf("server process %d still runs after Shutdown returned", pid)
	}
	if err := c.SetEnabled(ctxFor(t, 5*time.Second), true); !errors.Is(err, ErrShutdown) {
		t.Errorf("SetEnabled after Shutdown: %v, want ErrShutdown", err)
	}
}
