//go:build unix

package jsonrpc_test

//lint:file-ignore SA1019 the Go SDK client is measured as a session-revision client, with its (2026-07-28-deprecated) logging handler

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// The round-trip benchmarks call the same minimal server binary (the fake
// server in normal mode) with the same small tools/call, through three
// clients. Run them together:
//
//	go test ./jsonrpc -run '^$' -bench 'RoundTrip|Intake' -benchmem -count 5

var echoParams = map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}}

// BenchmarkRoundTripOurs: our connection, with tracing and anomaly hooks on
// as the runtime uses it.
func BenchmarkRoundTripOurs(b *testing.B) {
	s := startServer(b, jsonrpctest.Normal, serverOpts{conn: jsonrpc.Options{
		Trace:     func(jsonrpc.Frame) {},
		OnAnomaly: func(jsonrpc.Anomaly) {},
	}})
	initialize(b, s.conn)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := s.conn.Call(ctx, "tools/call", echoParams, jsonrpc.WithLabel("echo")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripBare: a bare sourcegraph/jsonrpc2 connection, the
// floor our layer is measured against.
func BenchmarkRoundTripBare(b *testing.B) {
	path, args, env := jsonrpctest.Command(jsonrpctest.Normal)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(rwc{stdout, stdin}),
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }),
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	b.Cleanup(func() {
		conn.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	ctx := context.Background()
	var init json.RawMessage
	if err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bare", "version": "0"}}, &init); err != nil {
		b.Fatal(err)
	}
	_ = conn.Notify(ctx, "notifications/initialized", nil)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		var res json.RawMessage
		if err := conn.Call(ctx, "tools/call", echoParams, &res); err != nil {
			b.Fatal(err)
		}
	}
}

type rwc struct {
	io.ReadCloser
	io.WriteCloser
}

func (r rwc) Close() error {
	r.WriteCloser.Close()
	return r.ReadCloser.Close()
}

// BenchmarkRoundTripGoSDK: the official Go SDK client against the same
// server binary.
func BenchmarkRoundTripGoSDK(b *testing.B) {
	path, args, env := jsonrpctest.Command(jsonrpctest.Normal)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIntakeOurs measures notification intake from a flooding server:
// every notification delivered, in order (lossless), with the heap's peak
// growth reported.
func BenchmarkIntakeOurs(b *testing.B) {
	const perCall = 100_000
	var got atomic.Int64
	var lastSeq atomic.Int64
	lastSeq.Store(-1)
	var outOfOrder atomic.Bool
	s := startServer(b, jsonrpctest.Normal, serverOpts{conn: jsonrpc.Options{
		Lossless: true,
		OnNotification: func(n jsonrpc.Notification) {
			var p struct{ Data struct{ Seq int64 } }
			_ = json.Unmarshal(n.Params, &p)
			if p.Data.Seq != (lastSeq.Load()+1)%perCall {
				outOfOrder.Store(true)
			}
			lastSeq.Store(p.Data.Seq)
			got.Add(1)
		},
	}})
	initialize(b, s.conn)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	peak := sampleHeap()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := s.conn.Call(context.Background(), "tools/call", map[string]any{"name": "flood", "arguments": map[string]any{"count": perCall}}); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	peakHeap := peak()
	if outOfOrder.Load() {
		b.Fatal("notifications delivered out of order")
	}
	want := int64(b.N) * perCall
	for got.Load() < want {
		runtime.Gosched() // the dispatcher finishes the last batch
	}
	b.ReportMetric(float64(want)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(peakHeap-before.HeapAlloc)/(1<<20), "peak-heap-MB")
}

// BenchmarkIntakeGoSDK: the official Go SDK client receiving the same flood.
func BenchmarkIntakeGoSDK(b *testing.B) {
	const perCall = 100_000
	var got atomic.Int64
	path, args, env := jsonrpctest.Command(jsonrpctest.Normal)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { got.Add(1) },
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"count": perCall}}); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(b.N) * perCall
	deadline := time.Now().Add(time.Minute)
	for got.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // a benchmark, not a test: waiting for the SDK's handlers to drain
	}
	b.ReportMetric(float64(got.Load())/time.Since(start).Seconds(), "msgs/s")
}

// reportCPU reports the CPU time this process (the client: the server is
// a child process and not counted) spent per operation. On a shared 2-core
// VM the wall-clock latency of a cross-process round trip varies by ±20%
// from run to run with scheduling; the client's CPU cost is what our layer
// adds, and it is steady. Call as defer reportCPU(b)().
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

// sampleHeap samples the heap until the returned func is called, which
// stops sampling and returns the highest HeapAlloc seen.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-t.C:
			case <-stop:
				return
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}
