package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// fakeProcess is a misbehaving fake server (this test binary) with an
// automatic reconnect policy.
func fakeProcess(name string, mode jsonrpctest.Mode, reconnect config.Reconnect, opts ...jsonrpctest.Option) config.Server {
	path, args, _ := jsonrpctest.Command(mode, opts...)
	return config.Server{Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(mode, opts...), Enabled: true, StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
		PingInterval: time.Minute, AutoReconnect: reconnect}
}

// A server that failed and reconnected is ready: the overview no longer
// shows the failure as its error with a hint to act on, only, faintly,
// what it recovered from.
func TestReadyServerDropsTheEarlierError(t *testing.T) {
	t.Parallel()
	srv := fakeProcess("s", jsonrpctest.Normal, config.Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = rt.Call(ctx, runtime.CallRequest{Server: "s", Tool: "crash", Arguments: json.RawMessage(`{}`)})
	v := hs.waitView("ready again after the crash", func(v string) bool {
		s, _ := rt.Snapshot().Server("s")
		return s.State == runtime.StateReady && s.Restarts > 0 && strings.Contains(v, "recovered")
	})
	for _, stale := range []string{"error  ", "hint  ", "press R to reconnect"} {
		if strings.Contains(v, stale) {
			t.Fatalf("the ready server still shows %q:\n%s", stale, v)
		}
	}
}

// A server whose automatic reconnects all failed says that it gave up,
// and how to try again.
func TestReconnectThatGaveUpSaysSo(t *testing.T) {
	t.Parallel()
	srv := fakeProcess("broken", jsonrpctest.ExitEarly, config.Reconnect{Enabled: true, MaxAttempts: 2, InitialBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("gave up reconnecting after 2 attempts: press R to try again")
}
