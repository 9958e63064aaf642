package bench

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/runtimetest"
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

// newRuntime starts a controller on servers with MCP enabled; a server
// that fails is not reconnected (the load test's figures would hide it).
func newRuntime(t testing.TB, servers ...config.Server) *runtime.Controller {
	t.Helper()
	return runtimetest.Start(t, runtime.Options{NoAutoReconnect: true}, servers...)
}
