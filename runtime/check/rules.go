package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// The authoring rules. They judge what the steps saw, so they run after
// the server has stopped, except probeErrors, which needs it up.

// noSuchTool and noSuchMethod are names no server should know.
const (
	noSuchTool   = "mcpdeck_check_no_such_tool"
	noSuchMethod = "mcpdeck/check-no-such-method"
)

// probeErrors asks for a tool and a method that do not exist: the answers
// must be errors with a message and a code of the right class.
func (c *checker) probeErrors() Item {
	it := Item{ID: IDActionableErrors, Name: Name(IDActionableErrors)}
	var fails, warns, oks []string

	start := time.Now()
	raw, err := c.rt.Request(c.ctx, c.name, "tools/call", map[string]any{"name": noSuchTool, "arguments": map[string]any{}})
	c.noteError("tools/call "+noSuchTool, start, err)
	what := fmt.Sprintf("tools/call of unknown tool %q", noSuchTool)
	var rpcErr *runtime.RPCError
	switch {
	case err == nil:
		var res runtime.Result
		_ = json.Unmarshal(raw, &res)
		switch {
		case !res.IsError:
			fails = append(fails, what+" succeeded: answer -32602 (or an isError result) naming the tool")
		case firstText(&res) == "(no text)":
			fails = append(fails, what+" answered isError with no text: say what went wrong")
		default:
			oks = append(oks, what+" → isError")
		}
	case errors.As(err, &rpcErr):
		judgeCode(what, rpcErr, runtime.CodeInvalidParams, &fails, &warns, &oks)
	default:
		fails = append(fails, what+": "+errorSummary(err, c.opts.CallTimeout))
	}

	if c.server().State.Live() {
		start = time.Now()
		_, err = c.rt.Request(c.ctx, c.name, noSuchMethod, nil)
		c.noteError(noSuchMethod, start, err)
		what = fmt.Sprintf("unknown method %q", noSuchMethod)
		switch {
		case err == nil:
			fails = append(fails, what+" succeeded: answer -32601 Method not found")
		case errors.As(err, &rpcErr):
			judgeCode(what, rpcErr, runtime.CodeMethodNotFound, &fails, &warns, &oks)
		default:
			fails = append(fails, what+": "+errorSummary(err, c.opts.CallTimeout))
		}
	}
	var found bool
	if it.Status, it.Reason, found = verdict(fails, warns); !found {
		it.Status, it.Reason = Pass, strings.Join(oks, "; ")
	}
	return it
}

// judgeCode sorts an error response: an empty message fails, a code other
// than want warns (a reserved JSON-RPC code of another kind) or fails (a
// code outside the reserved range).
func judgeCode(what string, e *runtime.RPCError, want int64, fails, warns, oks *[]string) {
	switch {
	case strings.TrimSpace(e.Message) == "":
		*fails = append(*fails, fmt.Sprintf("%s answered error %d with an empty message: say what went wrong and what to do", what, e.Code))
	case e.Code == want:
		*oks = append(*oks, fmt.Sprintf("%s → %d %q", what, e.Code, oneLine(e.Message, 60)))
	case e.Code >= -32768 && e.Code <= -32000:
		*warns = append(*warns, fmt.Sprintf("%s answered %d %q: the code for it is %d", what, e.Code, oneLine(e.Message, 60), want))
	default:
		*fails = append(*fails, fmt.Sprintf("%s answered code %d, outside JSON-RPC's reserved range: use %d", what, e.Code, want))
	}
}

func errorSummary(err error, timeout time.Duration) string {
	switch {
	case errors.Is(err, runtime.ErrTimeout):
		return "no response within " + ms(timeout) + ": answer every request, with an error if need be"
	case errors.Is(err, runtime.ErrClosed):
		return "the server closed the connection (" + closeCause(err) + "): an unknown name must never crash it"
	}
	return errText(err)
}

func (c *checker) actionableErrors() (Status, string) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip
	}
	if !c.probedError {
		return Skip, "skipped: the server was not up to ask"
	}
	return c.errorProbe.Status, c.errorProbe.Reason
}

// stableNames compares the tool names before and after the reconnect.
func (c *checker) stableNames() (Status, string) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip
	}
	if c.toolsAfter == nil {
		return Skip, "skipped: the reconnect step did not list the tools again"
	}
	before, after := sortedNames(c.tools), sortedNames(c.toolsAfter)
	if slices.Equal(before, after) {
		return Pass, "the same " + count(len(before), "tool name", "tool names") + " after a reconnect"
	}
	var gone, added []string
	for _, n := range before {
		if !slices.Contains(after, n) {
			gone = append(gone, n)
		}
	}
	for _, n := range after {
		if !slices.Contains(before, n) {
			added = append(added, n)
		}
	}
	return Fail, fmt.Sprintf("tool names changed across a reconnect (gone: %s; new: %s): derive names from nothing that changes per process, clients and models key on them",
		listOrNone(gone, 4), listOrNone(added, 4))
}

func listOrNone(l []string, n int) string {
	switch {
	case len(l) == 0:
		return "none"
	case len(l) > n:
		return strings.Join(l[:n], ", ") + fmt.Sprintf(" and %d more", len(l)-n)
	}
	return strings.Join(l, ", ")
}

// boundedResults judges the largest tools/call response the check saw.
func (c *checker) boundedResults() (Status, string) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip
	}
	if c.tooLarge {
		return Fail, fmt.Sprintf("a tools/call response was over %d bytes and was refused: return less, or return a resource link", c.maxMessage())
	}
	largest, n := 0, 0
	for _, e := range c.obs.all() {
		if f, ok := e.(runtime.TrafficFrame); ok && f.Frame.Dir == runtime.In && f.Frame.Method == "tools/call" && f.Frame.Kind == runtime.FrameResult {
			largest = max(largest, f.Frame.Size)
			n++
		}
	}
	switch {
	case n == 0:
		return Skip, "no tools/call result came to measure"
	case largest > c.opts.ResultMax:
		return Fail, fmt.Sprintf("a tools/call result had %s, over the maximum of %s: return less, or page it", size(largest), size(c.opts.ResultMax))
	case largest > ResultWarn:
		return Warn, fmt.Sprintf("a tools/call result had %s, over %s: large results crowd a model's context", size(largest), size(ResultWarn))
	}
	return Pass, fmt.Sprintf("the largest of %d tools/call results had %s (WARN over %s, FAIL over %s)", n, size(largest), size(ResultWarn), size(c.opts.ResultMax))
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// noSecrets reports where a configured secret appeared in the tools.
func (c *checker) noSecrets() (Status, string) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip
	}
	if len(c.leaks) > 0 {
		return Fail, "a configured secret (an env or header value) appears in: " + strings.Join(c.leaks, ", ") +
			": never put credentials into tool names, descriptions or schemas, every model that reads them sees them"
	}
	n := len(c.srv.Secrets())
	if n == 0 {
		return Pass, "no secret is configured (header values, credential-like env values, the ones marked in \"secrets\"), so none can leak"
	}
	return Pass, fmt.Sprintf("none of the %s appears in a tool name, description or schema", count(n, "configured secret", "configured secrets"))
}

// responseIDs reports responses whose id matched no request. A response
// to a request of the session that was cancelled, and so is no longer
// awaited, is late rather than misaddressed: the server may have sent it
// before the cancellation reached it. Ids restart with every connection,
// so the requests are tracked per connection, from its initialize on.
func (c *checker) responseIDs() (Status, string) {
	var bad []string
	sent, answered := map[string]bool{}, map[string]bool{}
	for _, e := range c.obs.all() {
		switch e := e.(type) {
		case runtime.StateChanged:
			if e.To == runtime.StateStarting {
				sent, answered = map[string]bool{}, map[string]bool{} // a new connection: ids start again
			}
		case runtime.TrafficFrame:
			f := e.Frame
			switch {
			case f.Dir == runtime.Out && f.Kind == runtime.FrameRequest:
				if f.Method == "initialize" {
					sent, answered = map[string]bool{}, map[string]bool{}
				}
				sent[f.ID] = true
			case f.Dir == runtime.In && f.Method != "" && (f.Kind == runtime.FrameResult || f.Kind == runtime.FrameError):
				answered[f.ID] = true
			}
		case runtime.ProtocolAnomaly:
			if e.Kind == runtime.AnomalyUnknownResponse && !(sent[e.ID] && !answered[e.ID]) {
				bad = append(bad, e.ID)
			}
		}
	}
	if len(bad) > 0 {
		reason := fmt.Sprintf("%s came with an id that matches no request (id %s)", count(len(bad), "response", "responses"), listOrNone(bad, 3))
		if len(c.noAnswer) > 0 {
			reason += fmt.Sprintf(", while request %d (%s) went unanswered", c.noAnswer[0].id, c.noAnswer[0].what)
		}
		return Fail, reason + ": copy the request's id into its response unchanged"
	}
	if c.initFailed != "" {
		return Skip, "skipped: initialization failed"
	}
	return Pass, "every response carried the id of a request"
}

// noNotification reports a request answered by a notification instead of
// a response: a notification carrying the id of a request that then got
// no response.
func (c *checker) noNotification() (Status, string) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip
	}
	events := c.obs.all()
	for _, p := range c.noAnswer {
		for _, e := range events {
			var method string
			var params json.RawMessage
			switch e := e.(type) {
			case runtime.LogMessage:
				method, params = "notifications/message", e.Data
			case runtime.NotificationReceived:
				method, params = e.Method, e.Params
			default:
				continue
			}
			t := e.Header().Time
			if t.Before(p.start) || t.After(p.end) || !mentionsID(params, p.id) {
				continue
			}
			return Fail, fmt.Sprintf("request %d (%s) got no response; a %s carrying its id came instead: answer a request with a JSON-RPC response, never a notification", p.id, p.what, method)
		}
	}
	return Pass, "no notification stood in for a response"
}

// stdoutNoise says how many lines were not JSON-RPC: once for a server
// started once; for more starts, the lines of each start when they are the
// same (a banner printed every time), else the total and each start's.
func stdoutNoise(perStart []int, total int, first string) string {
	const fix = "write logs to stderr, stdout carries only messages"
	quote := oneLine(first, 60)
	same := !slices.ContainsFunc(perStart, func(n int) bool { return n != perStart[0] })
	switch {
	case len(perStart) <= 1:
		return fmt.Sprintf("%s on stdout %s not JSON-RPC, the first: %q: %s", count(total, "line", "lines"), plural(total, "was", "were"), quote, fix)
	case same:
		return fmt.Sprintf("%s on stdout %s not JSON-RPC at each of its %d starts, the first: %q: %s",
			count(perStart[0], "line", "lines"), plural(perStart[0], "was", "were"), len(perStart), quote, fix)
	}
	each := make([]string, len(perStart))
	for i, n := range perStart {
		each[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("%s on stdout %s not JSON-RPC over its %d starts (%s per start), the first: %q: %s",
		count(total, "line", "lines"), plural(total, "was", "were"), len(perStart), strings.Join(each, ", "), quote, fix)
}

// stdoutClean reports anything on a stdio server's stdout that is not
// JSON-RPC.
func (c *checker) stdoutClean() (Status, string) {
	if c.srv.Transport != config.TransportStdio {
		return Skip, "the server speaks " + string(c.srv.Transport) + ": stdout is not its transport"
	}
	// The check starts the server more than once (reconnect starts it
	// again): a banner printed at every start is counted per start, not
	// summed as if the server had printed it once more.
	var perStart []int // the noise lines of each start, in order
	var first string
	total := 0
	for _, e := range c.obs.all() {
		switch e := e.(type) {
		case runtime.StateChanged:
			if e.To == runtime.StateStarting && e.Server == c.name {
				perStart = append(perStart, 0)
			}
		case runtime.StdoutNoise:
			if len(perStart) == 0 {
				perStart = append(perStart, 0)
			}
			if total == 0 {
				first = e.Line
			}
			perStart[len(perStart)-1]++
			total++
		}
	}
	if total > 0 {
		return Fail, stdoutNoise(perStart, total, first)
	}
	if c.initFailed != "" {
		// Nothing was said at all: a pass would vouch for what was never
		// seen.
		return Skip, "skipped: initialization failed, so the server's stdout was never exercised"
	}
	return Pass, "stdout carried only JSON-RPC messages"
}
