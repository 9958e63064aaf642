package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// BenchmarkToolCall puts `mcpdeck bench`'s own loop (Run, every call
// through the runtime) side by side with the official Go SDK client's
// loop (v1.8.0, CallTool on one session), against the same server binary
// (the legacy fake, tool echo), one call at a time and eight at once:
//
//	go test ./runtime/bench -run '^$' -bench ToolCall -benchtime 5000x -count 5
//
// ns/op is the wall time per call at that concurrency (the inverse of the
// throughput), p50-ns and p99-ns the latency each loop measured around
// its calls, cpu-ns/op this process's CPU time per call (the client's
// cost, without the server's).
func BenchmarkToolCall(b *testing.B) {
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("mcpdeck/c%d", conc), func(b *testing.B) {
			rt := newRuntime(b, fakeServer("fake", jsonrpctest.Normal))
			ctx := context.Background()
			opts := Options{Servers: []string{"fake"}, Tool: "echo", Arguments: json.RawMessage(`{"text":"hello"}`), Concurrency: conc, Warmup: 10}
			if _, err := Run(ctx, rt, Options{Servers: opts.Servers, Tool: opts.Tool, Arguments: opts.Arguments, Requests: 1, Warmup: 10}); err != nil {
				b.Fatal(err)
			}
			opts.Warmup = 0
			opts.Requests = b.N
			cpu := cpuTime()
			b.ResetTimer()
			rep, err := Run(ctx, rt, opts)
			b.StopTimer()
			if err != nil || rep.OK != b.N {
				b.Fatalf("%+v %v", rep, err)
			}
			report(b, rep.Latency, cpu)
		})
		b.Run(fmt.Sprintf("gosdk/c%d", conc), func(b *testing.B) {
			path, args, env := jsonrpctest.Command(jsonrpctest.Normal)
			cmd := exec.Command(path, args...)
			cmd.Env = env
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
			for range 10 {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
			var issued atomic.Int64
			lats := make([][]time.Duration, conc)
			errs := make(chan error, conc)
			cpu := cpuTime()
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range conc {
				wg.Go(func() {
					for issued.Add(1) <= int64(b.N) {
						began := time.Now()
						if _, err := cs.CallTool(ctx, params); err != nil {
							errs <- err
							return
						}
						lats[w] = append(lats[w], time.Since(began))
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			select {
			case err := <-errs:
				b.Fatal(err)
			default:
			}
			var all []time.Duration
			for _, l := range lats {
				all = append(all, l...)
			}
			l, _ := distribution(all)
			report(b, l, cpu)
		})
	}
}

func report(b *testing.B, l Latency, cpuBefore time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpuBefore).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(l.P50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(l.P99.Nanoseconds()), "p99-ns")
}
