// Package runtimetest starts a runtime.Controller for the tests of the
// packages built on it (the gateway, the app host, the load test): one
// way to bring servers up with MCP on and to shut them down at cleanup.
package runtimetest

import (
	"context"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// Start starts a controller with opts over servers (opts.Config, when nil,
// is a configuration of exactly those; a zero StopGrace is half a second),
// switches MCP on, and fails t unless every server is live. The
// controller is shut down at cleanup; a shutdown that fails is an error.
func Start(t testing.TB, opts runtime.Options, servers ...config.Server) *runtime.Controller {
	t.Helper()
	if opts.Config == nil {
		opts.Config = &config.Config{Servers: servers}
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 500 * time.Millisecond
	}
	rt := runtime.New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Shutdown(ctx); err != nil {
			t.Errorf("runtime shutdown: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatalf("enable: %v", err)
	}
	for _, s := range rt.Snapshot().Servers {
		if !s.State.Live() {
			t.Fatalf("server %s is %s: %s", s.Name, s.State, s.Reason)
		}
	}
	return rt
}
