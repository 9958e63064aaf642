//go:build unix

package record

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// BenchmarkIntake measures notification intake through the whole runtime
// from a flooding server (the fake server's flood tool), consumed
// losslessly as `watch` does, without and with a recorder writing the
// session to disk. Run both in one go so they share the machine's state:
//
//	go test ./runtime/record -run '^$' -bench Intake -count 6 | tee intake.txt
//	benchstat -col /record intake.txt
func BenchmarkIntake(b *testing.B) {
	const perCall = 20000
	for _, mode := range []string{"none", "drain", "record"} {
		recording := mode == "record"
		b.Run("consumer="+mode, func(b *testing.B) {
			cfg := configOf(fakeServer("flood", jsonrpctest.Normal))
			c := runtime.New(runtime.Options{Config: cfg, StopGrace: 500 * time.Millisecond})
			defer shutdown(b, c)
			events, cancel := c.Subscribe(runtime.SubscribeOptions{Lossless: true, Buffer: 4096})
			counted := make(chan int, 1)
			go func() {
				n := 0
				for e := range events {
					if _, ok := e.(runtime.LogMessage); ok {
						n++
						if n%perCall == 0 {
							counted <- n
						}
					}
				}
			}()
			defer cancel()
			var r *Recorder
			if mode == "drain" {
				// A lossy subscriber that only discards: what the bus
				// costs any second consumer (the TUI is one).
				ch, cancel := c.Subscribe(runtime.SubscribeOptions{Buffer: 16384})
				drained := make(chan struct{})
				go func() {
					for range ch {
					}
					close(drained)
				}()
				defer func() { cancel(); <-drained }()
			}
			if recording {
				var err error
				r, err = Start(c, Options{Path: b.TempDir() + "/bench.jsonl", Config: cfg})
				if err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			if err := c.SetEnabled(ctx, true); err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(fmt.Sprintf(`{"count":%d}`, perCall))
			req := runtime.CallRequest{Server: "flood", Tool: "flood", Arguments: args, Timeout: time.Minute}
			b.ResetTimer()
			cpu0 := cpuTime()
			start := time.Now()
			for b.Loop() {
				if _, err := c.Call(ctx, req); err != nil {
					b.Fatal(err)
				}
				<-counted
			}
			elapsed := time.Since(start)
			cpu := cpuTime() - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(perCall*b.N), "cpu-ns/notification")
			b.ReportMetric(float64(perCall*b.N)/elapsed.Seconds(), "notifications/s")
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(perCall*b.N), "ns/notification")
			if r != nil {
				shutdown(b, c)
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
				st := r.Stats()
				b.ReportMetric(float64(st.Dropped)/float64(perCall*b.N), "dropped/notification")
			}
		})
	}
}

// cpuTime is this process's CPU time (user and system), excluding the
// server child: what recording costs the machine, which on a shared
// 2-core machine decides throughput more than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
