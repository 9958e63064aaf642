//go:build linux

package runtime

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"mcpdeck/config"
)

// BenchmarkThousandHangingStarts: 1,000 stdio servers that never answer
// (sleep 3600), each with a 2s startup timeout, as issue 29 describes.
// "decided-s" is how long enabling took until every start had failed;
// each iteration also checks that every server failed of the timeout.
//
//	go test ./runtime -run '^$' -bench ThousandHangingStarts -benchtime 1x -count 5
func BenchmarkThousandHangingStarts(b *testing.B) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		b.Fatalf("this benchmark needs sleep(1): %v", err)
	}
	const n = 1000
	var servers []config.Server
	for i := range n {
		servers = append(servers, config.Server{Name: fmt.Sprintf("s%04d", i), Transport: config.TransportStdio, Command: sleep, Args: []string{"3600"},
			Enabled: true, StartupTimeout: 2 * time.Second, CallTimeout: time.Second})
	}
	var decided time.Duration
	for b.Loop() {
		start := time.Now()
		c := New(Options{Config: &config.Config{Servers: servers}, NoAutoReconnect: true})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := c.SetEnabled(ctx, true); err != nil {
			b.Fatal(err)
		}
		decided += time.Since(start)
		for _, v := range c.Snapshot().Servers {
			if v.State != StateFailed || v.LastError == nil || v.LastError.Kind != KindTimeout {
				b.Errorf("%s: %s (%v)", v.Name, v.State, v.LastError)
			}
		}
		if err := c.Shutdown(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(decided.Seconds()/float64(b.N), "decided-s")
}
