//go:build unix

package mcp

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// The round trip of a small tools/call on a real stdio child, legacy era
// against modern era, through jsonrpc.Conn as the runtime uses it. The
// modern one pays for what the era adds on the client: the _meta envelope
// built for every request and the resultType read from every result (and
// the server's longer answer: resultType and serverInfo). Run together:
//
//	go test ./runtime/mcp -run '^$' -bench RoundTrip -benchmem -cpu 1 -count 10
//
// cpu-ns/op is the client process's own CPU time per call, without the
// server child's.

func startConn(b *testing.B, mode jsonrpctest.Mode) *jsonrpc.Conn {
	b.Helper()
	path, args, env := jsonrpctest.Command(mode)
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
	conn := jsonrpc.NewConn(jsonrpc.NewStdioStream(stdout, stdin, stdin, jsonrpc.StdioOptions{}), jsonrpc.Options{
		Trace:     func(jsonrpc.Frame) {},
		OnAnomaly: func(jsonrpc.Anomaly) {},
	})
	b.Cleanup(func() {
		conn.Close()
		_ = cmd.Wait()
	})
	return conn
}

func BenchmarkRoundTripLegacy(b *testing.B) {
	conn := startConn(b, jsonrpctest.Normal)
	ctx := context.Background()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": LatestLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}}); err != nil {
		b.Fatal(err)
	}
	_ = conn.Notify(ctx, "notifications/initialized", nil)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		params := map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}}
		if _, err := conn.Call(ctx, "tools/call", params, jsonrpc.WithLabel("echo")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoundTripModern(b *testing.B) {
	conn := startConn(b, jsonrpctest.Modern)
	ctx := context.Background()
	env := Envelope{Version: LatestModern, ClientInfo: &Implementation{Name: "bench", Version: "0"}}
	raw, err := conn.Call(ctx, MethodDiscover, env.Apply(nil))
	if err != nil {
		b.Fatal(err)
	}
	if v := Decide(Preference{}, raw, nil, timeNow()); v.Era != Modern {
		b.Fatalf("the probe decided %v", v)
	}
	enc, err := env.Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		params, err := enc.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := conn.Call(ctx, "tools/call", params, jsonrpc.WithLabel("echo"))
		if err != nil {
			b.Fatal(err)
		}
		if t, err := TypeOf(res, false); err != nil || t != Complete {
			b.Fatalf("result type %q, %v", t, err)
		}
	}
}

func timeNow() time.Time { return time.Now() }

// reportCPU reports this process's CPU time per op (cpu-ns/op): the
// client's own cost, without the server child's, which wall time mixes in.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
