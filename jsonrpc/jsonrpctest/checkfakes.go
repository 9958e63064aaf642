package jsonrpctest

import (
	"fmt"
	"time"
)

// Modes for the compatibility check's verdicts: the normal server plus one
// tool whose answer a checker has to judge carefully.
const (
	// SteadyProgress lists one tool, "process", which works in ten steps
	// of MCPDECK_FAKE_DELAY (default 1s) and reports progress after each
	// one when asked: slow, but never silent, and nothing in its name or
	// description says it takes its time.
	SteadyProgress Mode = "steady-progress"
	// ErrorText makes echo answer "Error: fetch failed" as ordinary text,
	// without isError, as a server that turns a failure into a string does.
	ErrorText Mode = "error-text"
)

// steadySteps is how many steps "process" takes.
const steadySteps = 10

// checkTools adjusts the catalogue for the check modes.
func checkTools(mode Mode, cfg settings, tools []*tool) []*tool {
	switch mode {
	case SteadyProgress:
		step := cfg.delay
		if step == defaultDelay {
			step = time.Second // the delay knob's default is SlowInit's
		}
		tools = []*tool{{name: "process", description: fmt.Sprintf("Processes the input in %d steps, reporting progress after each.", steadySteps),
			run: func(s *server, c *call, _ map[string]any) { runSteady(s, c, step) }}}
	case ErrorText:
		for _, t := range tools {
			if t.name == "echo" {
				t.run = func(s *server, c *call, _ map[string]any) { s.answerCall(c, textResult("Error: fetch failed"), nil) }
			}
		}
	}
	return tools
}

// runSteady takes steadySteps steps of step each, sending a progress
// notification after every step when the call asked for progress.
func runSteady(s *server, c *call, step time.Duration) {
	for i := 1; i <= steadySteps; i++ {
		if !sleepCtx(c.ctx, step) {
			return
		}
		if c.progressToken != nil && i < steadySteps {
			s.notify("notifications/progress", map[string]any{
				"progressToken": c.progressToken, "progress": i, "total": steadySteps,
				"message": fmt.Sprintf("step %d of %d", i, steadySteps),
			})
		}
	}
	s.answerCall(c, textResult(fmt.Sprintf("processed in %d steps", steadySteps)), nil)
}
