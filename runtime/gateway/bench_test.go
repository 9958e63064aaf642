package gateway

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// envServe makes the test binary a stdio gateway (a stand-in for `mcpdeck
// gateway`) over one server, the fake server in normal mode, named "up".
const envServe = "MCPDECK_GATEWAY_TEST_SERVE"

func maybeServeGateway() {
	if os.Getenv(envServe) != "1" {
		return
	}
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	srv := config.Server{Name: "up", Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.Normal), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}, Elicitor: runtime.DeclineElicitor{}})
	ctx := context.Background()
	if err := rt.SetEnabled(ctx, true); err != nil {
		os.Exit(1)
	}
	g := New(rt, Options{})
	_ = g.ServeStdio(ctx, os.Stdin, os.Stdout)
	_ = g.Close(ctx)
	_ = rt.Shutdown(ctx)
	os.Exit(0)
}

// stdioPeer starts a process and connects to it over its stdio; a legacy
// peer is initialized first.
func stdioPeer(b *testing.B, path string, args, env []string, legacy bool) *jsonrpc.Conn {
	b.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	conn := jsonrpc.NewConn(jsonrpc.NewStdioStream(stdout, stdin, stdin, jsonrpc.StdioOptions{}), jsonrpc.Options{})
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
		_ = conn.Close()
	})
	ctx := context.Background()
	if !legacy {
		return conn
	}
	if _, err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}}); err != nil {
		b.Fatal(err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		b.Fatal(err)
	}
	return conn
}

// BenchmarkGatewayRoundTrip: a small tools/call through the gateway
// (client → gateway process → server process, stdio both sides) against
// two direct round trips from the same client to a server binary of the
// same era (the fake server; its modern variant for the modern client).
// Each iteration does both, interleaved, so load on a shared machine
// weighs on both alike:
//
//	go test ./runtime/gateway -run '^$' -bench GatewayRoundTrip -benchmem -count 6
//
// direct-ns/op is the pair of direct calls, gateway-ns/op the call through
// the gateway, x-direct the second over the first.
func BenchmarkGatewayRoundTrip(b *testing.B) {
	ctx := context.Background()
	exe, _ := os.Executable()
	env := append(os.Environ(), envServe+"=1", "GORACE=atexit_sleep_ms=0")
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "bench", "version": "0"}}
	withMeta := func(name string) map[string]any {
		return map[string]any{"name": name, "arguments": map[string]any{"text": "hello"}, "_meta": meta}
	}
	for _, era := range []string{"legacy", "modern"} {
		b.Run(era, func(b *testing.B) {
			mode, direct, params := jsonrpctest.Normal, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}},
				map[string]any{"name": "up__echo", "arguments": map[string]any{"text": "hello"}}
			if era == "modern" {
				mode, direct, params = jsonrpctest.Modern, withMeta("echo"), withMeta("up__echo")
			}
			path, args, fenv := jsonrpctest.Command(mode)
			server := stdioPeer(b, path, args, fenv, era == "legacy")
			gw := stdioPeer(b, exe, []string{"-test.run=^$"}, env, era == "legacy")
			var viaDirect, viaGateway time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				for range 2 {
					if _, err := server.Call(ctx, "tools/call", direct); err != nil {
						b.Fatal(err)
					}
				}
				t1 := time.Now()
				if _, err := gw.Call(ctx, "tools/call", params); err != nil {
					b.Fatal(err)
				}
				viaDirect += t1.Sub(t0)
				viaGateway += time.Since(t1)
			}
			b.ReportMetric(float64(viaDirect.Nanoseconds())/float64(b.N), "direct-ns/op")
			b.ReportMetric(float64(viaGateway.Nanoseconds())/float64(b.N), "gateway-ns/op")
			b.ReportMetric(float64(viaGateway)/float64(viaDirect), "x-direct")
		})
	}
}
