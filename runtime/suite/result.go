package suite

import (
	"time"
)

// Status is how a step, or a run, ended.
type Status string

// Step outcomes. A failure is an expectation the server did not meet; an
// error is a step that could not be judged (the connection broke, a
// variable could not be resolved); a skipped step did not run.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Errored Status = "error"
	Skipped Status = "skipped"
)

// Result is one run of a suite, on one protocol choice. It is the stable
// shape of `mcpdeck test --json`.
type Result struct {
	File  string `json:"file"`
	Suite string `json:"suite"`
	// Server names the server (configured name, command or URL).
	Server string `json:"server"`
	// Protocol is what the run asked for ("" when the suite says
	// nothing: the configuration's or --protocol's choice); Era and
	// Version what was negotiated.
	Protocol string        `json:"protocol,omitempty"`
	Era      string        `json:"era,omitempty"`
	Version  string        `json:"version,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	Steps    []StepResult  `json:"steps"`
	// Error says why the run could not start (the server did not connect)
	// or broke off; ConnectFailed marks the former.
	Error         string `json:"error,omitempty"`
	ConnectFailed bool   `json:"connectFailed,omitempty"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Index    int           `json:"index"` // 0-based, in the file
	Key      string        `json:"key"`   // id, or step-N
	Label    string        `json:"label"`
	Kind     Kind          `json:"kind"`
	Pos      string        `json:"pos"` // file:line:col
	Status   Status        `json:"status"`
	Duration time.Duration `json:"durationNs"`
	Failures []Failure     `json:"failures,omitempty"`
	// Error is why an errored or skipped step could not be judged.
	Error string `json:"error,omitempty"`
	// SnapshotWritten: the step had no snapshot (or --update was given)
	// and this run wrote it.
	SnapshotWritten bool `json:"snapshotWritten,omitempty"`
}

// Failure is one expectation a step did not meet.
type Failure struct {
	// Expectation names it: isError, error, equals, matches, exists,
	// absent, schema, outputSchema, snapshot, latency, notifications, or
	// request (the request itself failed).
	Expectation string `json:"expectation"`
	Path        string `json:"path,omitempty"`
	Message     string `json:"message"`
	// Expected and Actual are compact JSON where they apply.
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Diff is a unified diff (snapshot, and equality of larger values).
	Diff string `json:"diff,omitempty"`
	Pos  string `json:"pos,omitempty"` // where the expectation is written
}

// Counts tallies steps by status.
type Counts struct {
	Steps   int `json:"steps"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errors"`
	Skipped int `json:"skipped"`
}

// Count tallies a run's steps.
func (r *Result) Count() Counts {
	var c Counts
	for _, s := range r.Steps {
		c.Steps++
		switch s.Status {
		case Passed:
			c.Passed++
		case Failed:
			c.Failed++
		case Errored:
			c.Errored++
		case Skipped:
			c.Skipped++
		}
	}
	return c
}

// OK reports a run that started and whose every step passed.
func (r *Result) OK() bool {
	c := r.Count()
	return r.Error == "" && c.Failed == 0 && c.Errored == 0 && c.Skipped == 0
}

// Add sums counts.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Steps + o.Steps, c.Passed + o.Passed, c.Failed + o.Failed, c.Errored + o.Errored, c.Skipped + o.Skipped}
}

// Name names a run for reports: the suite, and the protocol it asked for
// when it asked.
func (r *Result) Name() string {
	if r.Protocol != "" {
		return r.Suite + " [" + r.Protocol + "]"
	}
	return r.Suite
}
