package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Regression is a percentile of a run slower than its baseline's by more
// than the tolerance.
type Regression struct {
	Percentile string        `json:"percentile"` // p50, p99
	Baseline   time.Duration `json:"baseline"`
	Current    time.Duration `json:"current"`
	// Change is the relative change: 0.25 is 25 % slower.
	Change float64 `json:"change"`
}

func (r Regression) String() string {
	return fmt.Sprintf("%s regressed: %s → %s (%+.0f%%)", r.Percentile, Round(r.Baseline), Round(r.Current), 100*r.Change)
}

// Compare returns the percentiles (p50 and p99) of current slower than
// baseline's by more than tolerance (0.2: 20 %).
func Compare(baseline, current Report, tolerance float64) []Regression {
	var out []Regression
	for _, p := range []struct {
		name string
		b, c time.Duration
	}{{"p50", baseline.Latency.P50, current.Latency.P50}, {"p99", baseline.Latency.P99, current.Latency.P99}} {
		if p.b <= 0 {
			continue
		}
		change := float64(p.c-p.b) / float64(p.b)
		if change > tolerance {
			out = append(out, Regression{Percentile: p.name, Baseline: p.b, Current: p.c, Change: change})
		}
	}
	return out
}

// Unlike says how current was measured otherwise than baseline: another
// tool, concurrency or number of connections, each of which moves the
// percentiles by itself, so that a comparison of the two says little about
// the server. Nothing when they were measured alike. The server's name is
// not compared: two servers (an old build and a new one) measured alike
// are what a baseline is for.
func Unlike(baseline, current Report) []string {
	var out []string
	if baseline.Tool != current.Tool {
		out = append(out, fmt.Sprintf("tool %q, not %q", baseline.Tool, current.Tool))
	}
	if baseline.Concurrency != current.Concurrency {
		out = append(out, fmt.Sprintf("concurrency %d, not %d", baseline.Concurrency, current.Concurrency))
	}
	if baseline.Connections != current.Connections {
		out = append(out, fmt.Sprintf("%d connections, not %d", baseline.Connections, current.Connections))
	}
	return out
}

// ReadBaseline reads a report written by `mcpdeck bench --json`.
func ReadBaseline(path string) (Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Report{}, fmt.Errorf("reading the baseline: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("reading the baseline %s: %w (give a file written by mcpdeck bench --json)", path, err)
	}
	if r.Requests == 0 || r.Latency.P50 <= 0 {
		return Report{}, fmt.Errorf("the baseline %s has no measured calls (give a file written by mcpdeck bench --json)", path)
	}
	return r, nil
}

// Round shortens a duration for people: three significant digits.
func Round(d time.Duration) time.Duration {
	for _, unit := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
		if d >= unit {
			return d.Round(unit / 100)
		}
	}
	return d
}
