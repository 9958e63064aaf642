package check

import (
	"encoding/json"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/proc"
)

// Timing of the disruptive steps. midFlight is the longest the checker
// waits for a slow tool's first progress before acting on its request:
// long enough for the request to reach the server, short enough to land
// well within the tool's 30 seconds. settle is how long it watches for a
// response that must not come after a cancellation.
const (
	midFlight = 200 * time.Millisecond
	settle    = 300 * time.Millisecond
)

// inFlight is a tools/call running on its own goroutine.
type inFlight struct {
	cand  candidate
	slow  bool
	id    chan uint64
	done  chan outcome
	start time.Time
}

type outcome struct {
	res *runtime.Result
	err error
}

// slowCall is how long the call step's call must have taken (or it sent
// progress) for the disruptive steps to count its tool as one that takes
// its time: long enough to act on it mid-flight.
const slowCall = 4 * midFlight

// outstandingCall picks the call to keep outstanding: a slow tool with a
// long duration, else a call the call step saw take its time or report
// progress, else the call step's tool, else any tool the checker can call.
func (c *checker) outstandingCall() (candidate, bool, bool) {
	if cand, ok := slowTool(c.tools); ok {
		return cand, true, true
	}
	if c.seenSlow != nil {
		return *c.seenSlow, true, true
	}
	if c.calledTool != "" {
		if t, ok := c.tool(c.calledTool); ok {
			return candidate{tool: t, args: c.calledArgs}, false, true
		}
	}
	if cands, _ := callCandidates(c.tools); len(cands) > 0 {
		return cands[0], false, true
	}
	return candidate{}, false, false
}

// start sends the call and returns once it has an id (or has already
// ended); the caller must receive from done.
func (c *checker) start(cand candidate, slow bool) *inFlight {
	f := &inFlight{cand: cand, slow: slow, id: make(chan uint64, 1), done: make(chan outcome, 1), start: time.Now()}
	go func() {
		res, err := c.rt.Call(c.ctx, runtime.CallRequest{Server: c.name, Tool: cand.tool.ServerTool, Arguments: cand.args,
			OnStarted: func(id uint64) { f.id <- id }})
		f.done <- outcome{res, err}
	}()
	return f
}

// await waits until the request is outstanding: for a slow tool, its
// first progress or midFlight; for another, just its id. It returns 0 if
// the call ended before it was even sent.
func (c *checker) await(f *inFlight, from int) uint64 {
	var id uint64
	select {
	case id = <-f.id:
	case o := <-f.done:
		f.done <- o
		return 0
	}
	if f.slow {
		c.obs.waitFor(c.ctx, from, midFlight, func(e runtime.Event) bool {
			p, ok := e.(runtime.Progress)
			return ok && p.RequestID == id
		})
	}
	return id
}

// cancellation cancels a call mid-flight: no response may match it
// afterwards, and the server must still answer ping.
func (c *checker) cancellation() (Status, string) {
	cand, slow, ok := c.outstandingCall()
	if !ok {
		return Skip, "no tool the checker can call, so there is no request to cancel"
	}
	if !slow {
		// An instant tool answers before notifications/cancelled arrives,
		// which the specification allows: cancelling it proves nothing and
		// must not count against the server.
		seen := "was not seen taking its time"
		if cand.tool.ServerTool == c.calledTool {
			seen = "answered in " + ms(c.calledTook) + " without progress"
		}
		return Skip, fmt.Sprintf("no tool that takes its time (sleep, wait, long-running, or one that took its time or reported progress in the call step), so no call can be cancelled mid-flight; %s %s, and a response that crosses a cancellation is allowed", cand.tool.ServerTool, seen)
	}
	from := c.obs.mark()
	f := c.start(cand, slow)
	id := c.await(f, from)
	cancelled := id != 0 && c.rt.Cancel(c.name, id, "mcpdeck check: testing cancellation")
	o := <-f.done
	c.noteError("tools/call "+cand.tool.ServerTool, f.start, o.err)
	what := fmt.Sprintf("%s %s", cand.tool.ServerTool, cand.args)
	var skip string
	switch {
	case errors.Is(o.err, runtime.ErrClosed):
		return Fail, fmt.Sprintf("the server closed the connection during the cancelled %s (%s)", what, closeCause(o.err))
	case !cancelled || !errors.Is(o.err, runtime.ErrCancelled):
		// The answer crossed the cancellation: allowed by the spec, and
		// not a finding about the server either way.
		skip = fmt.Sprintf("%s answered before the cancellation reached it, so cancellation mid-flight was not checked (a response that crosses a cancellation is allowed); ", what)
	}
	method, pingTook, err := c.rt.Ping(c.ctx, c.name) // server/discover on a modern server, which has no ping
	if err != nil {
		return Fail, fmt.Sprintf("after cancelling %s the server did not answer %s: %s", what, method, errText(err))
	}
	if id != 0 {
		if _, late := c.obs.waitFor(c.ctx, from, settle, func(e runtime.Event) bool {
			a, ok := e.(runtime.ProtocolAnomaly)
			return ok && a.ID == strconv.FormatUint(id, 10)
		}); late {
			// The client dropped it, so nothing was matched; the spec says
			// the receiver SHOULD stop and not reply: a warning, not a failure.
			return Warn, fmt.Sprintf("the server answered %s (request %d) after it was cancelled (mcpdeck dropped the answer): once notifications/cancelled arrives, stop and send no response", what, id)
		}
	}
	if skip != "" {
		return Skip, skip + method + " answered in " + ms(pingTook)
	}
	return Pass, fmt.Sprintf("cancelled %s mid-flight (request %d): no response came for it, and %s answered in %s", what, id, method, ms(pingTook))
}

// reconnect drops the transport with a request outstanding: the request
// must be rejected and the transport closed, and a fresh connection must
// initialize and list the same tool names.
func (c *checker) reconnect() (Status, string) {
	before := c.server()
	var notes []string
	var f *inFlight
	var id uint64
	from := c.obs.mark()
	if cand, slow, ok := c.outstandingCall(); ok {
		f = c.start(cand, slow)
		id = c.await(f, from)
	} else {
		notes = append(notes, "no tool to keep outstanding, so the rejection was not checked")
	}
	dropErr := c.rt.Drop(c.name)
	if f != nil {
		o := <-f.done
		c.noteError("tools/call "+f.cand.tool.ServerTool, f.start, o.err)
		what := fmt.Sprintf("request %d (%s)", id, f.cand.tool.ServerTool)
		switch {
		case o.err == nil:
			notes = append(notes, what+" was answered before the drop, so its rejection was not checked")
		case errors.Is(o.err, runtime.ErrClosed) && dropErr != nil:
			notes = append(notes, fmt.Sprintf("the server closed the connection by itself with %s outstanding (%s)", what, closeCause(o.err)))
		case errors.Is(o.err, runtime.ErrClosed):
			notes = append(notes, what+" was rejected")
		default:
			return Fail, fmt.Sprintf("dropping the transport did not reject the outstanding %s: it ended with %s", what, errText(o.err))
		}
	}
	if _, closed := c.obs.waitFor(c.ctx, from, c.opts.CallTimeout, func(e runtime.Event) bool {
		s, ok := e.(runtime.StateChanged)
		return ok && s.Server == c.name && s.To == runtime.StateFailed
	}); !closed {
		return Fail, fmt.Sprintf("the transport did not close within %s of the drop (%v)", ms(c.opts.CallTimeout), dropErr)
	}
	if before.PID > 0 && groupAlive(before.PID) {
		return Fail, fmt.Sprintf("after SIGKILL to process group %d, members of it are still running", before.PID)
	}
	notes = append(notes, "the transport closed")
	start := time.Now()
	if err := c.rt.Reconnect(c.ctx, c.name); err != nil {
		return Fail, strings.Join(notes, "; ") + "; but a fresh connection failed: " + errText(err)
	}
	after := c.server()
	if !after.State.Live() {
		return Fail, strings.Join(notes, "; ") + "; but a fresh connection failed: " + c.failure(after)
	}
	c.toolsAfter = after.Tools
	if c.toolsAfter == nil {
		c.toolsAfter = []runtime.Tool{}
	}
	c.leaks = runtime.MergeLeaks(c.leaks, after.SecretLeaks...)
	notes = append(notes, fmt.Sprintf("a fresh connection initialized in %s", ms(time.Since(start))))
	if !slices.Equal(sortedNames(before.Tools), sortedNames(after.Tools)) {
		return Warn, strings.Join(notes, "; ") + ", but listed different tool names (see stable tool names)"
	}
	return Pass, strings.Join(notes, "; ") + " and listed the same " + count(len(after.Tools), "tool name", "tool names")
}

// shutdown stops the server the way mcpdeck always does and reports which
// step of the stop sequence ended it.
func (c *checker) shutdown() (Status, string) {
	before := c.server()
	if err := c.rt.SetServerEnabled(c.ctx, c.name, false); err != nil {
		return Fail, "stopping the server failed: " + errText(err)
	}
	v := c.server()
	if c.srv.Transport != config.TransportStdio {
		return Pass, "the connection closed"
	}
	if before.PID > 0 && groupAlive(before.PID) {
		return Fail, fmt.Sprintf("process group %d still has members after the stop sequence: every process the server starts must exit with it", before.PID)
	}
	stop := v.LastStop
	if stop.Err != "" {
		return Fail, "stopping left processes behind: " + stop.Err
	}
	grace := ms(c.opts.StopGrace)
	var st Status
	var how string
	switch stop.Step {
	case runtime.StopStdinClose:
		st, how = Pass, fmt.Sprintf("exited %s after stdin closed", ms(stop.Took))
	case runtime.StopSIGTERM:
		st, how = Warn, fmt.Sprintf("kept running %s after stdin closed; SIGTERM stopped it: exit when stdin closes, as the stdio transport asks", grace)
	case runtime.StopSIGKILL:
		return Fail, fmt.Sprintf("ignored stdin close and SIGTERM (%s grace each); only SIGKILL stopped it: exit on stdin EOF, or at least on SIGTERM", grace)
	case runtime.StopExited:
		st, how = Warn, "the server had already exited before it was asked to stop ("+stop.Exit+")"
	default:
		st, how = Pass, "the server stopped"
	}
	if len(stop.Leftovers) > 0 {
		if stop.Step == runtime.StopStdinClose {
			how = "exited when stdin closed" // Took counts the clearing of what it left, too
		}
		return Fail, how + ", " + leftoverReason(stop.Leftovers)
	}
	// Descendants that left the group are seen only on Linux, and only
	// while the server still ran when it was asked to stop.
	if stop.Step == runtime.StopExited || goruntime.GOOS != "linux" {
		return st, how + "; no process of its group was left running"
	}
	return st, how + "; no process it started was left running"
}

// leftoverReason words what a server left running: the processes, with
// pid and command line, and what to fix.
func leftoverReason(left []runtime.LeftoverProcess) string {
	var inGroup, outside []string
	for _, l := range left {
		if l.LeftGroup {
			outside = append(outside, l.String())
		} else {
			inGroup = append(inGroup, l.String())
		}
	}
	var parts []string
	if len(inGroup) > 0 {
		parts = append(parts, fmt.Sprintf("but left %s of its process group running: %s (mcpdeck stopped %s with the group; a client that only waits for the server leaves %s running)",
			count(len(inGroup), "process", "processes"), listOrNone(inGroup, 3), plural(len(inGroup), "it", "them"), plural(len(inGroup), "it", "them")))
	}
	if len(outside) > 0 {
		parts = append(parts, fmt.Sprintf("but left %s that moved out of its process group (setsid, a daemonising fork), which nothing stops: %s, still running",
			count(len(outside), "process", "processes"), listOrNone(outside, 3)))
	}
	return strings.Join(parts, "; ") + ": stop every process you start before you exit (kill or wait for your children when stdin closes)"
}

// groupAlive reports whether any process of the group still exists.
func groupAlive(pgid int) bool { return proc.GroupAlive(pgid) }

func sortedNames(tools []runtime.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.ServerTool
	}
	slices.Sort(out)
	return out
}

// mentionsID reports whether a notification's params carry the request id
// under a key a response stand-in would use (requestId, id).
func mentionsID(raw json.RawMessage, id uint64) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	return findID(v, id, 0)
}

func findID(v any, id uint64, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch strings.ToLower(k) {
			case "requestid", "request_id", "id":
				if n, ok := x.(float64); ok && n == float64(id) {
					return true
				}
				if s, ok := x.(string); ok && s == strconv.FormatUint(id, 10) {
					return true
				}
			}
			if findID(x, id, depth+1) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if findID(x, id, depth+1) {
				return true
			}
		}
	}
	return false
}
