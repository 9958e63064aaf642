package apphost

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/runtimetest"
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
	return runtimetest.Start(t, runtime.Options{}, servers...)
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
