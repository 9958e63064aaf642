package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/suite"
	"mcpdeck/ui/present"
)

// suiteComparison is one suite run on both sides of a diff, on one
// protocol choice, and the steps whose outcome differs.
type suiteComparison struct {
	Suite    string        `json:"suite"`
	File     string        `json:"file"`
	Protocol string        `json:"protocol,omitempty"`
	A        *suite.Result `json:"a"`
	B        *suite.Result `json:"b"`
	// Different are the steps that ended otherwise on B than on A.
	Different []stepOutcomes `json:"different"`
}

// stepOutcomes is one step's outcome on each side.
type stepOutcomes struct {
	Key   string       `json:"key"`
	Label string       `json:"label"`
	Pos   string       `json:"pos"`
	A     suite.Status `json:"a"`
	B     suite.Status `json:"b"`
	// AWhy and BWhy say why the step did not pass on that side: its first
	// unmet expectation, or why it could not be judged.
	AWhy string `json:"aWhy,omitempty"`
	BWhy string `json:"bWhy,omitempty"`
}

// why is a step's first reason for not passing, "" when it passed.
func why(r suite.StepResult) string {
	switch {
	case r.Status == suite.Passed:
		return ""
	case len(r.Failures) > 0:
		return r.Failures[0].Message
	}
	return r.Error
}

// runDiffSuites runs each suite on both sides (the suite's own server is
// left aside: the steps go to A, then to B) and pairs the outcomes. A
// recording's side is the recording served as a mock (`replay --serve`),
// so a suite meets it as a client would. Snapshots are read, never
// written: a missing one fails its step on both sides alike.
func runDiffSuites(ctx context.Context, cmd *cobra.Command, sides []*diffSide, paths []string) ([]suiteComparison, error) {
	var suites []*suite.Suite
	for _, p := range paths {
		s, err := suite.ParseFile(p)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--suite: %w", err))
		}
		suites = append(suites, s)
	}
	var out []suiteComparison
	for _, s := range suites {
		protocols := s.Protocols
		if len(protocols) == 0 {
			protocols = []string{""}
		}
		for _, p := range protocols {
			c := suiteComparison{Suite: s.Name, File: s.Path, Protocol: p}
			results := make([]*suite.Result, len(sides))
			for i, side := range sides {
				open, err := side.opener(cmd)
				if err != nil {
					return nil, err
				}
				results[i] = suite.Run(ctx, s, p, suite.Options{Open: open})
				if ctx.Err() != nil {
					return nil, interrupted("diff")
				}
			}
			c.A, c.B = results[0], results[1]
			for i := range min(len(c.A.Steps), len(c.B.Steps)) {
				a, b := c.A.Steps[i], c.B.Steps[i]
				if a.Status != b.Status {
					c.Different = append(c.Different, stepOutcomes{Key: a.Key, Label: a.Label, Pos: a.Pos, A: a.Status, B: b.Status, AWhy: why(a), BWhy: why(b)})
				}
			}
			if c.A.ConnectFailed != c.B.ConnectFailed && len(c.Different) == 0 {
				c.Different = append(c.Different, stepOutcomes{Key: "connect", Label: "connect", A: outcome(c.A), B: outcome(c.B)})
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// outcome is a run's connection as a step status.
func outcome(r *suite.Result) suite.Status {
	if r.ConnectFailed {
		return suite.Errored
	}
	return suite.Passed
}

// opener connects this side for one suite run, in the era the run asks
// for: a live server as configured, a recording as its mock.
func (s *diffSide) opener(cmd *cobra.Command) (suite.Opener, error) {
	srv := s.live
	if srv == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding mcpdeck's own executable to serve %s: %w", s.Label, err)
		}
		abs, err := filepath.Abs(s.path)
		if err != nil {
			return nil, withCode(ExitUsage, err)
		}
		m := mockServer(exe, s.Server, abs, "--serve", "--server", s.Server, "--speed", "0")
		srv = &m
	}
	if _, err := protocolSetting(cmd); err != nil { // refused before any suite runs
		return nil, err
	}
	return func(ctx context.Context, _ *suite.Suite, protocol string, _ map[string]string) (*runtime.Controller, string, func(), error) {
		// The suite's protocol, else --protocol (sessionOptions).
		opts, err := sessionOptions(cmd, runtime.Options{Elicitor: runtime.DeclineElicitor{}, Auth: newAuthManager(cmd, 0), Protocol: protocol})
		if err != nil {
			return nil, "", nil, err
		}
		rt, err := startRuntime(ctx, &config.Config{Servers: []config.Server{*srv}}, opts)
		if err != nil {
			return nil, "", nil, err
		}
		if err := serverFailure(rt.Snapshot(), srv.Name); err != nil {
			shutdownRuntime(rt)
			return nil, "", nil, err
		}
		return rt, srv.Name, func() { shutdownRuntime(rt) }, nil
	}, nil
}

// printDiffSuites writes each suite's outcome on both sides and the steps
// that ended otherwise.
func printDiffSuites(w io.Writer, cs []suiteComparison) {
	for _, c := range cs {
		name := c.A.Name()
		fmt.Fprintf(w, "\nsuite %s (%s): A %s; B %s\n", present.Line(name), c.File, runWords(c.A), runWords(c.B))
		if len(c.Different) == 0 {
			fmt.Fprintln(w, "  the same outcome on both")
			continue
		}
		for _, d := range c.Different {
			fmt.Fprintf(w, "  ~ step %s (%s): A %s, B %s\n", present.Line(d.Key), d.Pos, d.A, d.B)
			for _, side := range []struct{ name, why string }{{"A", d.AWhy}, {"B", d.BWhy}} {
				if side.why != "" {
					// The side's server is named A or B too: said once.
					fmt.Fprintf(w, "      %s: %s\n", side.name, present.Line(strings.TrimPrefix(side.why, side.name+": ")))
				}
			}
		}
	}
}

func runWords(r *suite.Result) string {
	if r.ConnectFailed {
		return "could not connect: " + present.Line(r.Error)
	}
	c := r.Count()
	return fmt.Sprintf("%d passed, %d failed, %s, %d skipped", c.Passed, c.Failed, present.Count(c.Errored, "error", "errors"), c.Skipped)
}
