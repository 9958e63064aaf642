package bench

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
	jsonrpctest.MaybeServe() // the fake servers are this binary, re-executed
	goleak.VerifyTestMain(m)
}

// fakeServer configures a jsonrpctest server in mode as name.
func fakeServer(name string, mode jsonrpctest.Mode) config.Server {
	path, args, _ := jsonrpctest.Command(mode)
	return config.Server{Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(mode), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second}
}

// newRuntime starts servers and waits until they are ready; they are shut
// down at cleanup.
func newRuntime(t testing.TB, servers ...config.Server) *runtime.Controller {
	t.Helper()
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: servers}, StopGrace: 500 * time.Millisecond, NoAutoReconnect: true})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		if v, _ := rt.Snapshot().Server(s.Name); !v.State.Live() {
			t.Fatalf("%s is %s: %v", s.Name, v.State, v.LastError)
		}
	}
	return rt
}
