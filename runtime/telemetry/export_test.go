package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExportNeverBlocks: with a collector that does not answer, ending
// spans never waits; what does not fit the bounded queue is dropped,
// counted, and exposed in mcpdeck.telemetry.spans.dropped. Once the
// collector answers, the rest is exported: nothing is lost uncounted.
func TestExportNeverBlocks(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_BSP_MAX_QUEUE_SIZE", "8")
	t.Setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
	rcv := newReceiver(t)
	rcv.holdExports()
	tel, err := New(Options{Metrics: true, OTLPEndpoint: rcv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for range n {
			_, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "tools/call", Target: "echo", Server: "demo"})
			sp.End(nil, "")
		}
	}()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("ending spans blocked on a collector that does not answer")
	}
	dropped := tel.queue.dropped.Load()
	if dropped < n-16 || dropped > n {
		t.Errorf("%d spans dropped, want at least %d: the queue holds 8 and a batch 4", dropped, n-16)
	}
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	wantValue(t, scrape(t, ms.URL()), "mcpdeck_telemetry_spans_dropped_total", "", float64(dropped))

	rcv.release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	exported, dropped := tel.queue.exported.Load(), tel.queue.dropped.Load()
	if exported+dropped != n || uint64(len(rcv.got())) != exported || exported == 0 {
		t.Errorf("exported %d (collector got %d) + dropped %d, want %d in all with some exported", exported, len(rcv.got()), dropped, n)
	}
}

// logBuffer is a slog handler's output, safe for the export goroutine to
// write while the test reads.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestExportFailureCounted: spans a collector refuses are dropped and
// counted; the failure is logged once through Options.Logger.
func TestExportFailureCounted(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_BSP_EXPORT_TIMEOUT", "300")
	t.Setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2")
	down := httptest.NewServer(nil)
	url := down.URL
	down.Close() // nothing listens there any more
	var logs logBuffer
	tel, err := New(Options{OTLPEndpoint: url, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		_, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "ping", Server: "demo"})
		sp.End(nil, "")
	}
	if err := tel.queue.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := tel.queue.dropped.Load(); got != 6 {
		t.Errorf("%d spans dropped, want all 6", got)
	}
	if n := strings.Count(logs.String(), "exporting spans failed"); n != 1 {
		t.Errorf("failure logged %d times, want once:\n%s", n, logs.String())
	}
	_ = tel.Shutdown(context.Background())
}
