package apphost

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	goleak.VerifyTestMain(m)
}

// appsServer is the pinned MCP Apps example server on stdio.
func appsServer(t testing.TB) config.Server {
	node, script := jsonrpctest.AppsServer(t)
	return config.Server{Name: "basic", Transport: config.TransportStdio, Command: node, Args: []string{script, "--stdio"},
		Enabled: true, StartupTimeout: 60 * time.Second, CallTimeout: 30 * time.Second}
}

// newRuntime starts a controller on servers with MCP enabled, shut down
// at cleanup.
func newRuntime(t testing.TB, servers ...config.Server) *runtime.Controller {
	t.Helper()
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: servers}, StopGrace: 500 * time.Millisecond})
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

// newHost is a host over rt, closed at cleanup (before the runtime).
func newHost(t testing.TB, rt Runtime, opts Options) *Host {
	h := New(rt, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	return h
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
