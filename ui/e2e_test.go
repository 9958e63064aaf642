package ui

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// envDemo makes the test binary run the demo server.
const envDemo = "MCPDECK_UI_TEST_DEMO"

// TestEndToEndOnTheRealRuntime drives the UI on the real runtime and the
// demo server, as a person would: turn MCP on, call echo, read the
// result, quit. Afterwards no server process remains.
func TestEndToEndOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	demo := config.Server{
		Name: "demo", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second, PingInterval: time.Second,
	}
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{demo}}, StopGrace: time.Second})
	t.Cleanup(func() { rt.Shutdown(context.Background()) })

	p := &probe{m: newModel(Options{Runtime: rt}.withDefaults()), signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(140, 40))
	hs := &harness{t: t, tm: tm, p: p}
	hs.detach = Attach(rt, tm.Send)
	t.Cleanup(hs.stop)

	hs.waitText("MCP OFF", "demo")
	hs.keys("m")
	hs.waitText("MCP ON", "servers 1/1 ready")
	pid := 0
	if v, ok := rt.Snapshot().Server("demo"); ok {
		pid = v.PID
	}
	if pid == 0 {
		t.Fatal("the demo server has no pid while ready")
	}
	hs.waitText("pid          " + strconv.Itoa(pid))

	hs.keys("2", "tab")
	hs.waitText("› add")
	hs.keys("j")
	hs.waitText("› echo")
	hs.keys("enter")
	hs.waitText("Call demo › echo")
	hs.keys("h", "e", "l", "l", "o", " ", "d", "e", "c", "k")
	hs.waitText("arguments match the schema")
	hs.keys("enter")
	hs.waitText("Result of demo › echo", "hello deck", "✓ ok")
	hs.keys("esc")

	hs.keys("q")
	hs.tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
	hs.done = true
	hs.detach()
	// q tears every server down before the program ends.
	if v, _ := rt.Snapshot().Server("demo"); v.State.Live() {
		t.Fatalf("demo still %s after quit", v.State)
	}
	if !jsonrpctest.ProcessGone(pid) {
		t.Fatalf("demo server process %d still running after quit", pid)
	}
}
