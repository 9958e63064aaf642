package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

// R on a server that is off (switched off in the session, or disabled in
// its configuration) says so and which key switches it on, in the words
// the TUI uses for it, not the runtime's refused transition.
func TestReconnectOffServerSaysHowToSwitchItOn(t *testing.T) {
	t.Parallel()
	on := fakeProcess("on", jsonrpctest.Normal, config.Reconnect{})
	off := fakeProcess("off", jsonrpctest.Normal, config.Reconnect{})
	off.Enabled = false
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{on, off}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/2 ready")
	hs.keys("R") // off, listed first
	v := hs.waitText("off is disabled in its configuration: press space to switch it on for this session, and it connects")
	if strings.Contains(v, "cannot become") {
		t.Fatalf("the runtime's refusal shows:\n%s", v)
	}
	hs.keys("j", "space")
	// The switch's answer and then its snapshot: R reads the server's
	// state from the snapshot shown.
	hs.waitText("on switched off", "(switched off in this session: space turns it on)")
	hs.keys("R")
	hs.waitText("on is switched off in this session: press space to switch it on, and it connects")
}

// A valid server with a misspelt field runs without what the field meant:
// its Overview says so with the loader's own did-you-mean, as every
// command of the CLI does, without starting anything. A reload that fixes
// the field takes the warning away.
func TestMisspeltFieldShowsInOverview(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	write := func(def string) {
		if err := os.WriteFile(path, []byte(`{"mcpServers": {"demo": `+def+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Files: []string{path}, KeepInvalid: true})
	}
	write(`{"command": "node", "enviroment": {"A": "1"}}`)
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := startReal(t, runtime.Options{Config: cfg}, 80, 24, func(o *Options) { o.Config, o.Reload = cfg, load })
	hs.waitText("warning", `field "enviroment": unknown field is ignored`, "(did you mean", "env?) (at", "mcp.json:1:")
	write(`{"command": "node", "env": {"A": "1"}}`)
	hs.keys("r")
	hs.waitView("the warning gone after the fix is read", func(v string) bool {
		return strings.Contains(v, "configuration read") && !strings.Contains(v, "enviroment")
	})
}
