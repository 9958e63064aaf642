package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressInterval is how often sleep reports progress when asked to.
const progressInterval = 100 * time.Millisecond

// maxSleepSeconds bounds sleep so a typo cannot park a call for hours.
const maxSleepSeconds = 600

// tool is one entry of tools/list plus its implementation.
type tool struct {
	mcp.Tool
	// run executes a call whose arguments have been parsed but not checked.
	// It must return promptly once ctx is done; its result is then dropped.
	run func(ctx context.Context, c *toolCall) *mcp.CallToolResult
}

// hints are the tool annotations every demo tool shares: it reads, it is
// idempotent, and it stays in the process. Only hints that hold are sent,
// except openWorldHint, which defaults to true and so must be stated as
// false.
func hints(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
}

// toolCall is what a tool sees of its request.
type toolCall struct {
	args arguments
	// progress reports progress to the client; nil when the request carried
	// no progressToken.
	progress func(progress, total float64, message string)
}

func demoTools() []*tool {
	return []*tool{
		{Tool: mcp.Tool{
			Name:        "echo",
			Title:       "Echo",
			Description: "Returns the given text unchanged. Useful to check that calls round-trip.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to send back."}},"required":["text"]}`),
			Annotations: hints("Echo"),
		}, run: runEcho},
		{Tool: mcp.Tool{
			Name:         "add",
			Title:        "Add two numbers",
			Description:  "Adds a and b. Returns the sum as text and as structured content {\"sum\": number}.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"The first addend."},"b":{"type":"number","description":"The second addend."}},"required":["a","b"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`),
			Annotations:  hints("Add two numbers"),
		}, run: runAdd},
		{Tool: mcp.Tool{
			Name:  "sleep",
			Title: "Sleep",
			Description: "Waits the given number of seconds, then returns \"slept N s\". " +
				"Sends notifications/progress every 100 ms when the request carries a progressToken, " +
				"and stops without answering when cancelled.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":` +
				strconv.Itoa(maxSleepSeconds) + `,"default":2,"description":"How long to wait, in seconds."}}}`),
			Annotations: hints("Sleep"),
		}, run: runSleep},
		{Tool: mcp.Tool{
			Name:        "fail",
			Title:       "Always fail",
			Description: "Always returns a tool error (isError: true), so clients can show how they report one.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Annotations: hints("Always fail"),
		}, run: runFail},
	}
}

// invalidArguments is the spec's input-validation error: a tool error.
func invalidArguments(toolName string, err error) *mcp.CallToolResult {
	return toolError(fmt.Sprintf("invalid arguments for tool %q: %v; see the tool's inputSchema in tools/list", toolName, err))
}

func runEcho(_ context.Context, c *toolCall) *mcp.CallToolResult {
	s, err := c.args.str("text")
	if err != nil {
		return invalidArguments("echo", err)
	}
	return text(s)
}

func runAdd(_ context.Context, c *toolCall) *mcp.CallToolResult {
	a, err := c.args.number("a", nil)
	if err != nil {
		return invalidArguments("add", err)
	}
	b, err := c.args.number("b", nil)
	if err != nil {
		return invalidArguments("add", err)
	}
	sum := a + b
	if math.IsInf(sum, 0) {
		return toolError(fmt.Sprintf("add: %s + %s overflows a 64-bit float; use smaller numbers", formatNumber(a), formatNumber(b)))
	}
	r := text(formatNumber(sum))
	r.StructuredContent = map[string]float64{"sum": sum}
	return r
}

func runSleep(ctx context.Context, c *toolCall) *mcp.CallToolResult {
	def := 2.0
	secs, err := c.args.number("seconds", &def)
	if err == nil && (secs < 0 || secs > maxSleepSeconds) {
		err = fmt.Errorf("argument \"seconds\" must be between 0 and %d, got %s", maxSleepSeconds, formatNumber(secs))
	}
	if err != nil {
		return invalidArguments("sleep", err)
	}
	done := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer done.Stop()
	var tick <-chan time.Time
	if c.progress != nil {
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		tick = t.C
	}
	start := time.Now()
	last := -1.0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done.C:
			return text(fmt.Sprintf("slept %s s", formatNumber(secs)))
		case <-tick:
			// Millisecond precision keeps the numbers readable; skipping
			// repeats keeps progress strictly increasing, as the spec asks,
			// even when ticks bunch up behind a slow writer.
			p := math.Min(math.Round(time.Since(start).Seconds()*1000)/1000, secs)
			if p <= last {
				continue
			}
			last = p
			c.progress(p, secs, fmt.Sprintf("slept %s of %s s", formatNumber(math.Round(p*10)/10), formatNumber(secs)))
		}
	}
}

func runFail(context.Context, *toolCall) *mcp.CallToolResult {
	return toolError("the fail tool always fails: it exists so clients can show a tool error (isError: true). " +
		"Nothing is wrong with the server; call echo or add for a successful result.")
}

// formatNumber prints a float the way JSON would, without a trailing ".0".
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
