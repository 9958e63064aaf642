package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// frameWait bounds the wait for an event the controller has already
// published when the checker looks for it: only the observer's goroutine
// stands between them.
const frameWait = 2 * time.Second

// initialize starts the server and judges the handshake.
func (c *checker) initialize() (Status, string) {
	from := c.obs.mark()
	err := c.rt.SetEnabled(c.ctx, true)
	v := c.server()
	if err != nil && !v.State.Live() && v.LastError == nil {
		c.initFailed = errText(err)
		return Fail, "could not start the server: " + c.initFailed
	}
	c.report.Era, c.report.ProtocolVersion = v.Era.String(), v.ProtocolVersion
	if v.Era == runtime.EraUnknown {
		c.report.Era = ""
	}
	var init *initFrame
	if v.Era != runtime.EraModern {
		init = c.initResult(from)
	} else {
		// A modern server has no initialize to read; its first tools/list
		// answer is what the next item counts pages by.
		c.obs.waitFor(c.ctx, from, frameWait, frameIn("tools/list"))
	}
	if !v.State.Live() {
		why := c.failure(v)
		switch {
		case init != nil && init.Error == nil && !slices.Contains(runtime.ProtocolVersions, init.Result.ProtocolVersion):
			c.initFailed = why
			return Fail, fmt.Sprintf("the server answered protocolVersion %q to a request for %q; mcpdeck can use %s: answer with the requested version when you support it, else with one of those",
				init.Result.ProtocolVersion, runtime.ProtocolVersions[0], strings.Join(runtime.ProtocolVersions, ", "))
		case init == nil || init.Error != nil:
			c.initFailed = why
			return Fail, "initialization failed: " + why
		}
		c.listFailed = why
		return Pass, describeInit(init.Result) + "; listing failed after it (see tool listing)"
	}
	res := mcp.InitializeResult{ProtocolVersion: v.ProtocolVersion, ServerInfo: v.ServerInfo}
	_ = json.Unmarshal(v.Capabilities, &res.Capabilities)
	if init != nil {
		res = init.Result
	}
	c.tools, c.dropped, c.instructions = v.Tools, v.DroppedTools, v.Instructions
	c.leaks = runtime.MergeLeaks(c.leaks, v.SecretLeaks...)
	var warns []string
	if res.ServerInfo.Name == "" || res.ServerInfo.Version == "" {
		warns = append(warns, "serverInfo needs a name and a version")
	}
	if len(res.Capabilities.Raw) == 0 {
		warns = append(warns, "the result has no capabilities object")
	} else if res.Capabilities.Tools == nil && !strings.Contains(string(res.Capabilities.Raw), `"tools"`) && len(v.Tools) > 0 {
		warns = append(warns, "the server lists tools but does not declare the tools capability")
	}
	desc := describeInit(res)
	if v.Era == runtime.EraModern {
		desc = "modern era (server/discover): " + strings.Replace(desc, " (negotiated down from "+runtime.ProtocolVersions[0]+")", "", 1)
	}
	if len(warns) > 0 {
		return Warn, desc + ": " + strings.Join(warns, "; ")
	}
	return Pass, desc
}

// initFrame is the initialize response as it came off the wire.
type initFrame = jsonrpc.Response[mcp.InitializeResult]

// initResult reads the initialize response frame, when one came.
func (c *checker) initResult(from int) *initFrame {
	e, ok := c.obs.waitFor(c.ctx, from, frameWait, frameIn("initialize"))
	if !ok {
		return nil
	}
	var f initFrame
	if json.Unmarshal(e.(runtime.TrafficFrame).Frame.Raw, &f) != nil {
		return nil
	}
	return &f
}

func describeInit(r mcp.InitializeResult) string {
	info := strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
	if info == "" {
		info = "no serverInfo"
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(r.Capabilities.Raw, &caps)
	names := make([]string, 0, len(caps))
	for k := range caps {
		names = append(names, k)
	}
	sort.Strings(names)
	s := fmt.Sprintf("protocol %s, %s, capabilities: %s", r.ProtocolVersion, info, strings.Join(names, " "))
	if len(names) == 0 {
		s = fmt.Sprintf("protocol %s, %s, no capabilities", r.ProtocolVersion, info)
	}
	if r.ProtocolVersion != runtime.ProtocolVersions[0] {
		s += " (negotiated down from " + runtime.ProtocolVersions[0] + ")"
	}
	return s
}

// toolNameRE is the specification's tool name: 1 to 128 of A-Z a-z 0-9 _ - .
var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// toolsList judges every listed tool's name and input schema.
func (c *checker) toolsList() (Status, string) {
	if c.initFailed != "" {
		return Skip, "skipped: initialization failed"
	}
	if c.listFailed != "" {
		return Fail, "listing failed: " + c.listFailed
	}
	pages := listingPages(c.obs.all(), mcp.MethodListTools)
	var problems []string
	seen := map[string]bool{}
	for _, t := range c.tools {
		name := t.ServerTool
		if !toolNameRE().MatchString(name) {
			problems = append(problems, fmt.Sprintf("tool name %q is not 1-128 of A-Z a-z 0-9 _ - .", name))
		}
		if seen[name] {
			problems = append(problems, fmt.Sprintf("tool name %q is listed twice", name))
		}
		seen[name] = true
		if p := schemaProblem(t.InputSchema); p != "" {
			problems = append(problems, fmt.Sprintf("tool %q: %s", name, p))
		}
	}
	for _, d := range c.dropped {
		// The tool count is the one tools shows: what a client can call.
		problems = append(problems, fmt.Sprintf("tool %q was listed but left out, as every HTTP client must leave it out: %s", d.Name, d.Reason))
	}
	if len(problems) > 0 {
		return Fail, strings.Join(problems, "; ")
	}
	if len(c.tools) == 0 {
		return Warn, "the server lists no tools"
	}
	listed := count(len(c.tools), "tool", "tools")
	if pages > 0 {
		listed += " over " + count(pages, "page", "pages")
	}
	return Pass, listed + "; every name valid, every inputSchema a valid object schema"
}

// listingPages counts the pages of the last listing by method in events:
// the requests sent since the last one without a cursor (every transport
// traces the requests it sends, with their method). A server that changes
// its list after the handshake (server-everything adds a tool for a
// client that declares sampling, and says so) is listed again from the
// first page: counting every request took that relisting for pages.
func listingPages(events []runtime.Event, method string) int {
	pages := 0
	for _, e := range events {
		f, ok := e.(runtime.TrafficFrame)
		if !ok || f.Frame.Dir != runtime.Out || f.Frame.Kind != runtime.FrameRequest || f.Frame.Method != method {
			continue
		}
		var req struct {
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Frame.Raw, &req) == nil && req.Params.Cursor == nil {
			pages = 0 // a first page: a listing starts
		}
		pages++
	}
	return pages
}

// schemaProblem says what is wrong with an input schema, or "".
func schemaProblem(schema json.RawMessage) string {
	if len(schema) == 0 {
		return `has no inputSchema (use {"type": "object"} for a tool without arguments)`
	}
	if err := runtime.CheckSchemaBounds(schema); err != nil {
		return "inputSchema is not usable: " + err.Error() + "; clients refuse such schemas: flatten it"
	}
	if serr := (runtime.Tool{InputSchema: schema}).InputSchemaError(); serr != nil {
		return "inputSchema is not a valid JSON Schema:" + serr.Problems()
	}
	var top struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(schema, &top) != nil || top.Type != "object" {
		got := "missing"
		if top.Type != nil {
			b, _ := json.Marshal(top.Type)
			got = string(b)
		}
		return `inputSchema must have "type": "object" (it has ` + got + ")"
	}
	return ""
}

// call makes one successful call: the named tool, else one the checker
// can satisfy.
func (c *checker) call() (Status, string) {
	var cands []candidate
	if c.opts.Tool != "" {
		t, ok := c.tool(c.opts.Tool)
		if !ok {
			return Fail, fmt.Sprintf("the server lists no tool %q (it lists: %s)", c.opts.Tool, toolNames(c.tools))
		}
		args := c.opts.Args
		if len(args) == 0 {
			var reason string
			if args, reason, ok = MinimalArguments(t.InputSchema); !ok {
				return Skip, fmt.Sprintf("cannot call %q: %s; give its arguments with --args", t.ServerTool, reason)
			}
		}
		cands = []candidate{{tool: t, args: args}}
	} else {
		var why string
		if cands, why = callCandidates(c.tools); len(cands) == 0 {
			return Skip, "no tool to call: " + why
		}
	}
	// An isError may be the tool's environment, and a tool still working
	// at the check's limit is just slow: either way, try another.
	const attempts = 3
	var lastErr string
	var errorLike []string // answers that read like an error, without isError
	var firstErrorLike *candidate
	outcome := Fail
	for i, cand := range cands {
		if i == attempts {
			break
		}
		start := time.Now()
		res, err := c.callTool(cand.tool.ServerTool, cand.args, false)
		if err != nil {
			if n, ok := c.pastLimit(err, start); ok {
				c.seenSlow = &cand
				lastErr, outcome = fmt.Sprintf("%s %s kept reporting progress (%s) but had not answered when the check's limit of %s passed: the check waits that long for a tool that reports progress; name a quicker call with --tool and --args",
					cand.tool.ServerTool, cand.args, count(n, "notification", "notifications"), ms(c.opts.MaxCallTime)), Warn
				continue
			}
			return Fail, c.callFailure(cand.tool.ServerTool, cand.args, err)
		}
		if res.IsError {
			lastErr, outcome = fmt.Sprintf("%s %s returned isError: %s", cand.tool.ServerTool, cand.args, firstText(res)), Fail
			continue
		}
		if quote, ok := readsLikeError(res); ok {
			// It answered, but what it says is a failure: another tool
			// may show a call that works.
			errorLike = append(errorLike, fmt.Sprintf("%s %s answered %q without isError", cand.tool.ServerTool, cand.args, quote))
			if firstErrorLike == nil {
				firstErrorLike = &cand
			}
			continue
		}
		c.calledTool, c.calledArgs, c.calledTook = cand.tool.ServerTool, cand.args, res.Duration
		notes := c.progressOf(res.RequestID)
		if notes > 0 || res.Duration >= slowCall {
			c.seenSlow = &cand
		}
		reason := fmt.Sprintf("%s %s answered in %s", cand.tool.ServerTool, cand.args, ms(res.Duration))
		if notes > 0 {
			reason += fmt.Sprintf(", after %s (each restarts the %s wait, up to %s)", count(notes, "progress notification", "progress notifications"), ms(c.opts.CallTimeout), ms(c.opts.MaxCallTime))
		}
		if res.StructuredError != "" {
			return Warn, reason + ", but " + res.StructuredError
		}
		if len(errorLike) > 0 {
			return Warn, reason + "; but " + strings.Join(errorLike, "; ") + ": " + errorLikeFix
		}
		return Pass, reason
	}
	if len(errorLike) > 0 {
		c.calledTool, c.calledArgs = firstErrorLike.tool.ServerTool, firstErrorLike.args
		return Warn, strings.Join(errorLike, "; ") + ": " + errorLikeFix + "; no call succeeded plainly (pick one that should with --tool and --args)"
	}
	if outcome == Fail {
		lastErr += " (pick a call that should succeed with --tool and --args)"
	}
	return outcome, lastErr
}

// errorLikeFix is what to do about an answer that reads like an error.
const errorLikeFix = "set isError: true on a tool's failure, so clients and models can tell it from a result"

// errorStart and errorMark are text that says a tool failed: a message
// that starts like an error (Error: …, TypeError: …, Traceback …), or
// carries a failure no result does (fetch failed, ECONNREFUSED).
var (
	errorStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i:error\b|exception\b|fatal\b|failed to\b|failure\b|panic:|traceback \(most recent call last\))|^[\w.$]*(Error|Exception)\s*:`)
	})
	errorMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bfetch failed\b|\bE(CONNREFUSED|NOTFOUND|TIMEDOUT|CONNRESET)\b|\binternal server error\b|\bunhandled exception\b`)
	})
)

// readsLikeError reports a result without isError whose first text reads
// like an error, and quotes it.
func readsLikeError(r *runtime.Result) (string, bool) {
	for _, c := range r.Content {
		if c.Type != "text" || strings.TrimSpace(c.Text) == "" {
			continue
		}
		text := strings.TrimSpace(c.Text)
		head := text[:min(len(text), 300)]
		if errorStart().MatchString(head) || errorMark().MatchString(head) {
			return oneLine(text, 80), true
		}
		return "", false
	}
	return "", false
}

// progressOf counts the progress notifications request id got.
func (c *checker) progressOf(id uint64) int {
	n := 0
	for _, e := range c.obs.all() {
		if p, ok := e.(runtime.Progress); ok && id != 0 && p.RequestID == id {
			n++
		}
	}
	return n
}

// pastLimit reports a call that timed out while it kept reporting progress
// until the check's limit (MaxCallTime), and how many notifications came:
// a slow tool, not a silent one.
func (c *checker) pastLimit(err error, start time.Time) (int, bool) {
	if time.Since(start) < c.opts.MaxCallTime {
		return 0, false
	}
	n := c.timedOutProgress(err)
	return n, n > 0
}

// callTool calls a tool, recording a request that got no response.
func (c *checker) callTool(tool string, args json.RawMessage, noValidate bool) (*runtime.Result, error) {
	start := time.Now()
	res, err := c.rt.Call(c.ctx, runtime.CallRequest{Server: c.name, Tool: tool, Arguments: args, NoValidate: noValidate})
	c.noteError("tools/call "+tool, start, err)
	return res, err
}

// noteError records what an error says about the session: a request the
// server never answered, a result over the size limit.
func (c *checker) noteError(what string, start time.Time, err error) {
	var ce *runtime.CancelledError
	if errors.As(err, &ce) && ce.Timeout {
		c.noAnswer = append(c.noAnswer, pending{id: ce.ID, what: what, start: start, end: time.Now()})
	}
	if errors.Is(err, runtime.ErrMessageTooLarge) {
		c.tooLarge = true
	}
	if errors.Is(err, runtime.ErrClosed) {
		c.closed = true
	}
}

// callFailure explains a call that ended in an error rather than a result.
func (c *checker) callFailure(tool string, args json.RawMessage, err error) string {
	var rpcErr *runtime.RPCError
	switch {
	case errors.Is(err, runtime.ErrTimeout):
		if n := c.timedOutProgress(err); n > 0 {
			return fmt.Sprintf("%s %s sent %s, then neither progress nor a response for %s: keep reporting progress while you work, and answer with a response carrying the request's id", tool, args, count(n, "progress notification", "progress notifications"), ms(c.opts.CallTimeout))
		}
		return fmt.Sprintf("%s %s got no response within %s (a response with the wrong id or a notification does not count): answer every request with a response carrying its id", tool, args, ms(c.opts.CallTimeout))
	case errors.Is(err, runtime.ErrMessageTooLarge):
		return fmt.Sprintf("%s %s answered with a message over %d bytes: return less", tool, args, c.opts.ResultMax)
	case errors.Is(err, runtime.ErrClosed):
		return fmt.Sprintf("the server closed the connection during %s %s (%s): a call must never crash the server", tool, args, closeCause(err))
	case errors.As(err, &rpcErr):
		return fmt.Sprintf("%s %s answered error %d %q: a call with valid arguments should succeed", tool, args, rpcErr.Code, rpcErr.Message)
	}
	return fmt.Sprintf("%s %s failed: %s", tool, args, errText(err))
}

// timedOutProgress counts the progress notifications of a request that
// timed out; 0 for any other error.
func (c *checker) timedOutProgress(err error) int {
	var ce *runtime.CancelledError
	if !errors.As(err, &ce) || !ce.Timeout {
		return 0
	}
	return c.progressOf(ce.ID)
}

// closeCause is why a transport closed, without the wrapping.
func closeCause(err error) string {
	var ce *runtime.ClosedError
	if errors.As(err, &ce) && ce.Cause != nil {
		return ce.Cause.Error()
	}
	return err.Error()
}

func (c *checker) tool(name string) (runtime.Tool, bool) {
	if t, ok := runtime.LookupTool(c.tools, name); ok {
		return *t, true
	}
	return runtime.Tool{}, false
}

func toolNames(tools []runtime.Tool) string {
	if len(tools) == 0 {
		return "none"
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.ServerTool
	}
	return strings.Join(names, ", ")
}

func firstText(r *runtime.Result) string {
	for _, c := range r.Content {
		if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
			return oneLine(c.Text, 120)
		}
	}
	return "(no text)"
}

// count is n and the word for it: "1 tool", "14 tools". (The runtime
// cannot use ui/present; the faces word everything else.)
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// invalidInput sends arguments that break a tool's schema: the server
// must answer isError or -32602, never crash, hang or succeed.
func (c *checker) invalidInput() (Status, string) {
	t, args, how, ok := invalidCandidate(c.tools, c.calledTool)
	if !ok {
		return Skip, "no tool's inputSchema requires anything or constrains a type, so there are no invalid arguments to send"
	}
	what := fmt.Sprintf("%s %s (%s)", t.ServerTool, args, how)
	res, err := c.callTool(t.ServerTool, args, true)
	var rpcErr *runtime.RPCError
	switch {
	case err == nil && res.IsError:
		return Pass, what + " answered isError: " + firstText(res)
	case err == nil:
		if quote, ok := readsLikeError(res); ok {
			return Warn, fmt.Sprintf("%s answered %q, a refusal, but without isError: %s", what, quote, errorLikeFix)
		}
		return Fail, what + " succeeded: validate arguments against the inputSchema and answer an isError result naming the field"
	case errors.As(err, &rpcErr) && rpcErr.Code == runtime.CodeInvalidParams:
		if strings.TrimSpace(rpcErr.Message) == "" {
			return Warn, what + " answered -32602 with an empty message: say which argument is wrong"
		}
		return Pass, fmt.Sprintf("%s answered -32602 %q", what, rpcErr.Message)
	case errors.As(err, &rpcErr):
		return Warn, fmt.Sprintf("%s answered error %d %q: use an isError result (or -32602 Invalid params)", what, rpcErr.Code, rpcErr.Message)
	case errors.Is(err, runtime.ErrTimeout):
		return Fail, fmt.Sprintf("%s got no response within %s: reject invalid arguments at once", what, ms(c.opts.CallTimeout))
	case errors.Is(err, runtime.ErrClosed):
		return Fail, fmt.Sprintf("the server closed the connection on %s (%s): invalid input must never crash it", what, closeCause(err))
	}
	return Fail, what + " failed: " + errText(err)
}
