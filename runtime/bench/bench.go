// Package bench owns mcpdeck's load test (`mcpdeck bench`): one tool
// called again and again through the runtime, by a number of workers over
// one or more connections, and what came of it — throughput, the latency
// distribution, errors by kind, a histogram — and the comparison of a run
// with an earlier one (a baseline) for CI.
//
// The calls go through runtime.Controller.Call, the path every face of
// mcpdeck uses (arguments checked against the input schema, a progress
// token, the call timeout, the result decoded and bounded), so what is
// measured is a server as mcpdeck's users meet it, mcpdeck's own cost
// included; the README compares that cost with the official Go SDK
// client's on the same server.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/runtime"
)

// Caller makes one tool call; *runtime.Controller is one.
type Caller interface {
	Call(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error)
}

// Options say what to call, how much and how hard.
type Options struct {
	// Servers are the connections to spread the calls over, by server
	// name in the caller: one, or several copies of one server.
	Servers []string
	// Tool and Arguments are the call (the server's tool name).
	Tool      string
	Arguments json.RawMessage
	// Requests is how many calls to make (-n); Duration, when set
	// instead, how long to keep calling.
	Requests int
	Duration time.Duration
	// Concurrency is how many calls are in flight at once (default 1).
	Concurrency int
	// Timeout bounds each call (0: the server's call timeout).
	Timeout time.Duration
	// NoValidate sends the arguments without checking them against the
	// tool's input schema (call --no-validate).
	NoValidate bool
	// Warmup calls are made on each connection first and not counted.
	Warmup int
}

// ErrorToolResult names calls whose result had isError set.
const ErrorToolResult = "tool-error"

// Report is what a run measured. Durations are nanoseconds in JSON.
type Report struct {
	Server      string         `json:"server"`
	Tool        string         `json:"tool"`
	Connections int            `json:"connections"`
	Concurrency int            `json:"concurrency"`
	Requests    int            `json:"requests"`   // calls completed, errors included
	OK          int            `json:"ok"`         // calls that returned a result without isError
	Errors      map[string]int `json:"errors"`     // by kind: tool-error, timeout, protocol, closed, ...
	Elapsed     time.Duration  `json:"elapsed"`    // wall time of the measured calls
	Throughput  float64        `json:"throughput"` // completed calls per second
	Latency     Latency        `json:"latency"`
	Histogram   []Bucket       `json:"histogram"`
	// Interrupted is set when the run was cut short (ctrl+c): the figures
	// are those of the calls completed.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Latency is the distribution of the calls' round trips, errors
// included, from the caller's side.
type Latency struct {
	Min  time.Duration `json:"min"`
	Mean time.Duration `json:"mean"`
	P50  time.Duration `json:"p50"`
	P90  time.Duration `json:"p90"`
	P99  time.Duration `json:"p99"`
	Max  time.Duration `json:"max"`
}

// Bucket is one bar of the histogram: the calls that took at most Upper
// (and more than the previous bucket's Upper).
type Bucket struct {
	Upper time.Duration `json:"upper"`
	Count int           `json:"count"`
}

// ErrNoCalls: a run that was given nothing to do.
var ErrNoCalls = errors.New("nothing to measure")

// Run calls the tool as opts say and reports. It returns early, with the
// calls completed so far and Interrupted set, when ctx ends. A warm-up
// call that fails is an error: the server cannot be measured.
func Run(ctx context.Context, c Caller, opts Options) (Report, error) {
	if len(opts.Servers) == 0 || opts.Tool == "" {
		return Report{}, fmt.Errorf("%w: name a server and a tool", ErrNoCalls)
	}
	if opts.Requests <= 0 && opts.Duration <= 0 {
		return Report{}, fmt.Errorf("%w: give a number of requests or a duration", ErrNoCalls)
	}
	opts.Concurrency = max(opts.Concurrency, 1)
	req := func(server string) runtime.CallRequest {
		return runtime.CallRequest{Server: server, Tool: opts.Tool, Arguments: opts.Arguments, Timeout: opts.Timeout, NoValidate: opts.NoValidate}
	}
	for _, s := range opts.Servers {
		for range opts.Warmup {
			if _, err := c.Call(ctx, req(s)); err != nil {
				return Report{}, fmt.Errorf("warming up on %s: %w", s, err)
			}
		}
	}
	// The clock starts before the deadline is set, so a --duration run
	// never reports less time than it was given.
	start := time.Now()
	runCtx := ctx
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, start.Add(opts.Duration))
		defer cancel()
	}
	var issued atomic.Int64
	more := func() bool {
		if runCtx.Err() != nil {
			return false
		}
		return opts.Requests <= 0 || issued.Add(1) <= int64(opts.Requests)
	}
	type tally struct {
		lat    []time.Duration
		ok     int
		errors map[string]int
	}
	tallies := make([]tally, opts.Concurrency)
	var wg sync.WaitGroup
	for w := range opts.Concurrency {
		t := &tallies[w]
		t.errors = map[string]int{}
		r := req(opts.Servers[w%len(opts.Servers)])
		wg.Go(func() {
			for more() {
				// The deadline of a --duration run ends the loop, not a
				// call in flight: that one completes and counts.
				began := time.Now()
				res, err := c.Call(ctx, r)
				took := time.Since(began)
				if ctx.Err() != nil {
					return // interrupted: the call was cut short, not measured
				}
				t.lat = append(t.lat, took)
				switch {
				case err != nil:
					t.errors[runtime.KindOf(err).String()]++
				case res.IsError:
					t.errors[ErrorToolResult]++
				default:
					t.ok++
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	rep := Report{Server: opts.Servers[0], Tool: opts.Tool, Connections: len(opts.Servers), Concurrency: opts.Concurrency,
		Errors: map[string]int{}, Elapsed: elapsed, Interrupted: ctx.Err() != nil}
	for _, t := range tallies {
		all = append(all, t.lat...)
		rep.OK += t.ok
		for k, n := range t.errors {
			rep.Errors[k] += n
		}
	}
	rep.Requests = len(all)
	if elapsed > 0 {
		rep.Throughput = float64(rep.Requests) / elapsed.Seconds()
	}
	rep.Latency, rep.Histogram = distribution(all)
	return rep, nil
}

// distribution sorts the latencies and reads the percentiles (nearest
// rank) and a histogram from them.
func distribution(lat []time.Duration) (Latency, []Bucket) {
	if len(lat) == 0 {
		return Latency{}, nil
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(lat))+0.999999) - 1
		return lat[min(max(i, 0), len(lat)-1)]
	}
	l := Latency{Min: lat[0], Mean: sum / time.Duration(len(lat)), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Max: lat[len(lat)-1]}
	return l, histogram(lat)
}

// series are the bucket bounds of a decade, coarse to fine: readable
// numbers (1, 2, 5; 1, 1.5, 2, 3, 5, 7; ...) times a power of ten.
var series = [][]float64{
	{1, 2, 5},
	{1, 1.5, 2, 3, 5, 7},
	{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8},
}

// maxBuckets bounds the histogram's rows: the finest series that covers
// the calls in no more rows is used.
const maxBuckets = 16

// histogram puts sorted latencies into buckets with readable bounds on a
// logarithmic scale (a long tail stays visible), as fine as maxBuckets
// rows allow, from the fastest call to the slowest.
func histogram(sorted []time.Duration) []Bucket {
	var out []Bucket
	for _, s := range series {
		bounds := boundsFor(s, sorted[0], sorted[len(sorted)-1])
		if out != nil && len(bounds) > maxBuckets {
			break
		}
		out = out[:0]
		i := 0
		for _, b := range bounds {
			bk := Bucket{Upper: b}
			for i < len(sorted) && sorted[i] <= b {
				bk.Count++
				i++
			}
			out = append(out, bk)
		}
	}
	return out
}

// boundsFor lists the bounds of series s from the first at or above lo
// to the first at or above hi.
func boundsFor(s []float64, lo, hi time.Duration) []time.Duration {
	var out []time.Duration
	for mag := float64(time.Nanosecond); mag <= float64(time.Hour); mag *= 10 {
		for _, m := range s {
			b := time.Duration(m * mag)
			if b < lo {
				continue
			}
			out = append(out, b)
			if b >= hi {
				return out
			}
		}
	}
	return append(out, hi)
}
