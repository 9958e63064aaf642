package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Export queue defaults, overridable with the standard OTEL_BSP_*
// variables.
const (
	defaultQueueSize = 2048
	defaultBatchSize = 512
	defaultInterval  = 5 * time.Second
)

// startTraces builds the OTLP/HTTP exporter (otlpClient) and the tracer
// provider that feeds it through an exportQueue.
func (t *Telemetry) startTraces(res *resource.Resource, endpoint string) error {
	client, err := newOTLPClient(endpoint)
	if err != nil {
		return err
	}
	t.queue = newExportQueue(client, t.log, endpoint)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(t.queue),
	)
	t.tp = tp
	t.tracer = tp.Tracer("mcpdeck")
	t.endpoint = endpoint
	return nil
}

// exportQueue is the span processor between ended spans and the exporter.
// The SDK's BatchSpanProcessor would do the batching, but it drops spans
// silently when its queue is full (its count is private), and the issue
// asks for drops to be counted and exposed. OnEnd never blocks: a full
// queue drops the span and counts it, and so does a failed export.
type exportQueue struct {
	exp      sdktrace.SpanExporter
	log      *slog.Logger
	endpoint string

	queue    chan sdktrace.ReadOnlySpan
	batch    int
	interval time.Duration
	timeout  time.Duration

	dropped  atomic.Uint64
	exported atomic.Uint64

	flush chan chan struct{} // ForceFlush requests
	stop  chan struct{}      // closed by Shutdown
	// abort ends the export under way: Shutdown cancels it when its own
	// deadline passes, so no export outlives it (retrying a collector
	// that is down for up to OTEL_BSP_EXPORT_TIMEOUT).
	abortCtx context.Context
	abort    context.CancelFunc
	done     chan struct{} // closed when run has exported its last batch
	stopOnce sync.Once

	// failing is touched only by run: whether the last export failed, so a
	// collector that is down is logged once, and its recovery once.
	failing bool
}

func newExportQueue(exp sdktrace.SpanExporter, log *slog.Logger, endpoint string) *exportQueue {
	size := envInt("OTEL_BSP_MAX_QUEUE_SIZE", defaultQueueSize)
	batch := min(envInt("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", defaultBatchSize), size)
	q := &exportQueue{
		exp: exp, log: log, endpoint: endpoint,
		queue:    make(chan sdktrace.ReadOnlySpan, size),
		batch:    batch,
		interval: envMillis("OTEL_BSP_SCHEDULE_DELAY", defaultInterval),
		timeout:  exportTimeout(),
		flush:    make(chan chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	q.abortCtx, q.abort = context.WithCancel(context.Background())
	go q.run()
	return q
}

// OnStart implements sdktrace.SpanProcessor.
func (q *exportQueue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues an ended span, or drops and counts it when the queue is full.
func (q *exportQueue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case q.queue <- s:
	default:
		q.dropped.Add(1)
	}
}

// ForceFlush exports everything queued so far.
func (q *exportQueue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flush <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued, then shuts the exporter down. Spans
// ended afterwards stay in the queue and are never exported. When ctx
// ends first, the export under way is given up (and its spans counted as
// dropped) before Shutdown returns: nothing keeps running after it.
func (q *exportQueue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		q.abort()
		<-q.done
		return fmt.Errorf("flushing spans: %w", ctx.Err())
	}
	q.abort()
	return q.exp.Shutdown(ctx)
}

func (q *exportQueue) run() {
	defer close(q.done)
	tick := time.NewTicker(q.interval)
	defer tick.Stop()
	batch := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	send := func() {
		if len(batch) > 0 {
			q.export(batch)
			batch = batch[:0]
		}
	}
	drain := func() {
		for {
			select {
			case s := <-q.queue:
				if batch = append(batch, s); len(batch) == q.batch {
					send()
				}
			default:
				send()
				return
			}
		}
	}
	for {
		select {
		case s := <-q.queue:
			if batch = append(batch, s); len(batch) == q.batch {
				send()
			}
		case <-tick.C:
			send()
		case ack := <-q.flush:
			drain()
			close(ack)
		case <-q.stop:
			drain()
			return
		}
	}
}

// export sends one batch; on failure the batch is counted as dropped.
func (q *exportQueue) export(batch []sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(q.abortCtx, q.timeout)
	defer cancel()
	err := q.exp.ExportSpans(ctx, batch)
	if err != nil {
		q.dropped.Add(uint64(len(batch)))
		if !q.failing {
			q.log.Warn("exporting spans failed; dropping them until the collector answers",
				"endpoint", q.endpoint, "spans", len(batch), "err", err)
		}
		q.failing = true
		return
	}
	q.exported.Add(uint64(len(batch)))
	if q.failing {
		q.log.Info("exporting spans works again", "endpoint", q.endpoint)
		q.failing = false
	}
}

// envInt reads a positive integer variable, else def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// envMillis reads a positive duration in milliseconds, else def.
func envMillis(name string, def time.Duration) time.Duration {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return def
}

var _ sdktrace.SpanProcessor = (*exportQueue)(nil)
