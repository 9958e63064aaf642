package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// scripted is a Caller whose n-th call (from 0) takes and answers what
// the script says, and that counts calls per server.
type scripted struct {
	n      atomic.Int64
	script func(n int) (time.Duration, *runtime.Result, error)
	mu     sync.Mutex
	per    map[string]int
	active atomic.Int64
	most   atomic.Int64
}

func (s *scripted) Call(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error) {
	n := int(s.n.Add(1) - 1)
	a := s.active.Add(1)
	defer s.active.Add(-1)
	for m := s.most.Load(); a > m && !s.most.CompareAndSwap(m, a); m = s.most.Load() {
	}
	s.mu.Lock()
	if s.per == nil {
		s.per = map[string]int{}
	}
	s.per[req.Server]++
	s.mu.Unlock()
	d, res, err := s.script(n)
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return res, err
}

// Every call is counted once, by outcome: results, isError results, and
// errors by the runtime's kind; the warm-up is not counted.
func TestRunCountsByKind(t *testing.T) {
	c := &scripted{script: func(n int) (time.Duration, *runtime.Result, error) {
		switch n % 4 {
		case 1:
			return 0, &runtime.Result{IsError: true}, nil
		case 2:
			return 0, nil, fmt.Errorf("the call: %w", runtime.ErrTimeout)
		}
		return 0, &runtime.Result{}, nil
	}}
	rep, err := Run(context.Background(), c, Options{Servers: []string{"s"}, Tool: "t", Requests: 99, Concurrency: 3, Warmup: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.n.Load() != 100 || rep.Requests != 99 {
		t.Fatalf("%d calls made, %d counted", c.n.Load(), rep.Requests)
	}
	// Calls 1..99 after the warm-up (call 0): n%4 of 1 and 2 are 25 each.
	if rep.Errors[ErrorToolResult] != 25 || rep.Errors["timeout"] != 25 || rep.OK != 49 || len(rep.Errors) != 2 {
		t.Fatalf("ok %d, errors %v", rep.OK, rep.Errors)
	}
	if c.most.Load() > 3 {
		t.Errorf("%d calls in flight at once with concurrency 3", c.most.Load())
	}
}

// Percentiles are nearest-rank over every call; the histogram counts every
// call once, in readable bounds.
func TestDistribution(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	l, h := distribution(slices.Clone(lat))
	if l.Min != time.Millisecond || l.P50 != 50*time.Millisecond || l.P90 != 90*time.Millisecond || l.P99 != 99*time.Millisecond ||
		l.Max != 100*time.Millisecond || l.Mean != 50500*time.Microsecond {
		t.Fatalf("latency %+v", l)
	}
	total := 0
	var bounds []string
	for i, b := range h {
		total += b.Count
		bounds = append(bounds, b.Upper.String())
		if i > 0 && b.Upper <= h[i-1].Upper {
			t.Fatalf("bounds not increasing: %v", bounds)
		}
	}
	if total != 100 || len(h) > maxBuckets || h[len(h)-1].Upper < 100*time.Millisecond {
		t.Fatalf("histogram %v (total %d)", h, total)
	}
	if got := strings.Join(bounds, " "); got != "1ms 1.5ms 2ms 3ms 5ms 7ms 10ms 15ms 20ms 30ms 50ms 70ms 100ms" {
		t.Errorf("bounds %s", got)
	}
	// A narrow spread gets finer bounds.
	_, h = distribution([]time.Duration{50 * time.Millisecond, 52 * time.Millisecond, 61 * time.Millisecond})
	if len(h) < 2 {
		t.Errorf("a narrow spread in one bucket: %v", h)
	}
}

// --duration keeps calling until the time is up and counts the call in
// flight then; a cancelled run reports what completed, interrupted.
func TestRunForADurationAndInterrupted(t *testing.T) {
	c := &scripted{script: func(int) (time.Duration, *runtime.Result, error) { return time.Millisecond, &runtime.Result{}, nil }}
	rep, err := Run(context.Background(), c, Options{Servers: []string{"a", "b"}, Tool: "t", Duration: 100 * time.Millisecond, Concurrency: 2})
	if err != nil || rep.Interrupted || rep.Requests == 0 || rep.Requests != int(c.n.Load()) || rep.Elapsed < 100*time.Millisecond {
		t.Fatalf("%+v %v (made %d)", rep, err, c.n.Load())
	}
	if c.per["a"] == 0 || c.per["b"] == 0 || rep.Connections != 2 {
		t.Errorf("calls per connection %v", c.per)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = &scripted{script: func(n int) (time.Duration, *runtime.Result, error) {
		if n == 5 {
			cancel()
		}
		return 0, &runtime.Result{}, nil
	}}
	rep, err = Run(ctx, c, Options{Servers: []string{"a"}, Tool: "t", Requests: 1000})
	if err != nil || !rep.Interrupted || rep.Requests >= 1000 {
		t.Fatalf("interrupted run: %+v %v", rep, err)
	}
	if _, err := Run(context.Background(), c, Options{Servers: []string{"a"}, Tool: "t"}); !errors.Is(err, ErrNoCalls) {
		t.Errorf("nothing to do: %v", err)
	}
}

// A baseline flags p50 and p99 slower than the tolerance allows, not
// faster ones, and not within it.
func TestCompareWithBaseline(t *testing.T) {
	base := Report{Latency: Latency{P50: 100 * time.Microsecond, P99: time.Millisecond}}
	cur := Report{Latency: Latency{P50: 115 * time.Microsecond, P99: 1500 * time.Microsecond}}
	got := Compare(base, cur, 0.2)
	if len(got) != 1 || got[0].Percentile != "p99" || got[0].String() != "p99 regressed: 1ms → 1.5ms (+50%)" {
		t.Fatalf("%v", got)
	}
	if got := Compare(base, cur, 0.1); len(got) != 2 {
		t.Fatalf("tolerance 10%%: %v", got)
	}
	if got := Compare(cur, base, 0); len(got) != 0 {
		t.Fatalf("faster: %v", got)
	}
}

// A baseline measured otherwise (another tool, concurrency or number of
// connections) is named, what differs first as the baseline had it; the
// server's name is not compared.
func TestUnlikeBaseline(t *testing.T) {
	base := Report{Server: "old", Tool: "forecast", Concurrency: 1, Connections: 1}
	if got := Unlike(base, Report{Server: "new", Tool: "forecast", Concurrency: 1, Connections: 1}); len(got) != 0 {
		t.Errorf("alike but for the server: %q", got)
	}
	got := Unlike(base, Report{Server: "old", Tool: "slow", Concurrency: 4, Connections: 2})
	if want := []string{`tool "forecast", not "slow"`, "concurrency 1, not 4", "1 connections, not 2"}; !slices.Equal(got, want) {
		t.Errorf("Unlike = %q, want %q", got, want)
	}
}

// Against real servers through the runtime: the Go SDK peer (2026-07-28)
// and the legacy fake, over three connections each a process of its own;
// every call counted, errors by kind (an isError result, a timeout).
func TestRunAgainstServers(t *testing.T) {
	rt := newRuntime(t, fakeServer("peer", jsonrpctest.GoSDKModern),
		fakeServer("fake-1", jsonrpctest.Normal), fakeServer("fake-2", jsonrpctest.Normal), fakeServer("fake-3", jsonrpctest.Normal))
	ctx := context.Background()
	rep, err := Run(ctx, rt, Options{Servers: []string{"peer"}, Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`), Requests: 200, Concurrency: 4, Warmup: 1})
	if err != nil || rep.Requests != 200 || rep.OK != 200 || rep.Throughput <= 0 {
		t.Fatalf("peer: %+v %v", rep, err)
	}
	l := rep.Latency
	if !(0 < l.Min && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) {
		t.Fatalf("latency %+v", l)
	}
	fakes := []string{"fake-1", "fake-2", "fake-3"}
	pids := map[int]bool{}
	for _, f := range fakes {
		v, _ := rt.Snapshot().Server(f)
		pids[v.PID] = true
	}
	if len(pids) != 3 {
		t.Fatalf("three connections share processes: %v", pids)
	}
	rep, err = Run(ctx, rt, Options{Servers: fakes, Tool: "fail", Requests: 30, Concurrency: 3})
	if err != nil || rep.Errors[ErrorToolResult] != 30 || rep.OK != 0 {
		t.Fatalf("fail: %+v %v", rep, err)
	}
	// A call that times out is of kind timeout; one that times out after
	// the server sent progress instead of an answer, the runtime calls
	// protocol (a server that notifies but never answers). The fake's
	// first progress comes 50 ms in, so a 10 ms timeout leaves a loaded
	// machine 40 ms before progress can win the race (a 50 ms timeout
	// lost it on all three calls in one CI run).
	rep, err = Run(ctx, rt, Options{Servers: fakes[:1], Tool: "slow", Arguments: json.RawMessage(`{"seconds":5}`), Requests: 3, Timeout: 10 * time.Millisecond})
	if err != nil || rep.Errors["timeout"] == 0 || rep.Errors["timeout"]+rep.Errors["protocol"] != 3 || rep.OK != 0 {
		t.Fatalf("slow with a timeout: %+v %v", rep, err)
	}
}
