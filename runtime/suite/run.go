package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"mcpdeck/runtime"
)

// Opener connects to a suite's server for one run: protocol is the era or
// revision asked for ("" keeps the configuration's choice) and inputs the
// suite's inputs with their variables expanded. It returns a controller
// whose server is ready (or an error saying why it is not), the server's
// name in it, and a func that shuts the controller down and waits.
type Opener func(ctx context.Context, s *Suite, protocol string, inputs map[string]string) (rt *runtime.Controller, server string, closeFn func(), err error)

// Options say how to run a suite.
type Options struct {
	Open Opener
	// Snapshots is the suite's snapshot file, shared by its runs; nil
	// opens it for this run alone.
	Snapshots *Snapshots
	// Update rewrites every snapshot the run meets (--update).
	Update bool
	// WriteMissing writes a snapshot that does not exist yet instead of
	// failing the step (off under CI, where a missing snapshot is an
	// error: nobody would review what was written).
	WriteMissing bool
	// LookupEnv reads ${env:NAME}; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// OnStep, if set, is told each step's outcome as soon as it is known
	// (a streaming report).
	OnStep func(*Result, StepResult)
}

// DefaultWait bounds a wait or subscribe step that sets no timeout.
const DefaultWait = 10 * time.Second

// notificationGrace is how long after a step's answer the runner still
// waits for notifications an expectation counts: a server's log written
// just before its answer may be delivered just after it.
const notificationGrace = time.Second

// Run runs a suite once on protocol and reports every step. A server that
// does not connect makes a Result with ConnectFailed and every step
// skipped; a connection lost midway skips the steps after it.
func Run(ctx context.Context, s *Suite, protocol string, opts Options) *Result {
	res := &Result{File: s.Path, Suite: s.Name, Server: s.Server.String(), Protocol: protocol, Started: time.Now()}
	defer func() { res.Duration = time.Since(res.Started) }()
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Snapshots == nil {
		opts.Snapshots = OpenSnapshots(s)
	}
	sc := &scope{results: map[string]any{}, failed: map[string]bool{}, lookupEnv: opts.LookupEnv, inputs: map[string]string{}}
	for _, id := range sortedKeys(s.Inputs) {
		v, err := sc.expandText(s.Inputs[id])
		if err != nil {
			return res.abort(s, fmt.Sprintf("inputs.%s: %v", id, err), false, opts)
		}
		sc.inputs[id] = v
	}
	rt, server, closeFn, err := opts.Open(ctx, s, protocol, sc.inputs)
	if err != nil {
		return res.abort(s, err.Error(), true, opts)
	}
	defer closeFn()
	if v, ok := rt.Snapshot().Server(server); ok {
		res.Era, res.Version = v.Era.String(), v.ProtocolVersion
	}
	col := collect(rt, server)
	defer col.stop()
	r := &run{s: s, rt: rt, server: server, col: col, sc: sc, opts: opts, res: res}
	for i := range s.Steps {
		st := &s.Steps[i]
		var sr StepResult
		switch {
		case r.broken != "":
			sr = r.stepResult(st)
			sr.Status, sr.Error = Skipped, r.broken
		case ctx.Err() != nil:
			sr = r.stepResult(st)
			sr.Status, sr.Error = Skipped, "interrupted"
		default:
			sr = r.step(ctx, st)
		}
		res.Steps = append(res.Steps, sr)
		if opts.OnStep != nil {
			opts.OnStep(res, sr)
		}
	}
	return res
}

// abort ends a run that could not start: every step is skipped.
func (res *Result) abort(s *Suite, why string, connect bool, opts Options) *Result {
	res.Error, res.ConnectFailed = why, connect
	for i := range s.Steps {
		st := &s.Steps[i]
		sr := StepResult{Index: st.Index, Key: st.Key(), Label: st.Label(), Kind: st.Kind, Pos: st.Pos.String(), Status: Skipped, Error: why}
		res.Steps = append(res.Steps, sr)
		if opts.OnStep != nil {
			opts.OnStep(res, sr)
		}
	}
	return res
}

// run is one run's state.
type run struct {
	s      *Suite
	rt     *runtime.Controller
	server string
	col    *collector
	sc     *scope
	opts   Options
	res    *Result
	// lastMark is where the previous step began: a wait step looks at
	// notifications from there on, so one sent while the previous step
	// ran is not missed.
	lastMark int
	// broken, once set, says why the connection is gone.
	broken string
}

func (r *run) stepResult(st *Step) StepResult {
	return StepResult{Index: st.Index, Key: st.Key(), Label: st.Label(), Kind: st.Kind, Pos: st.Pos.String()}
}

// outcome is what a step's request produced.
type outcome struct {
	doc    any        // the result document (or the error document)
	rpcErr bool       // doc is a JSON-RPC error
	err    error      // the request failed otherwise (or unexpectedly)
	call   *callState // call steps
}

type callState struct {
	mu   sync.Mutex
	ids  map[uint64]bool
	res  *runtime.Result
	tool *runtime.Tool
}

func (c *callState) started(id uint64) {
	c.mu.Lock()
	c.ids[id] = true
	c.mu.Unlock()
}

// mine says which progress notifications belong to a call step's
// request; nil for other steps (their progress is not counted).
func (r *run) mine(c *callState) func(note) bool {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	ids := make(map[uint64]bool, len(c.ids))
	for id := range c.ids {
		ids[id] = true
	}
	c.mu.Unlock()
	return r.col.owner(ids)
}

func (r *run) step(ctx context.Context, st *Step) StepResult {
	sr := r.stepResult(st)
	mark := r.col.mark()
	from := r.lastMark
	r.lastMark = mark
	start := time.Now()
	out := r.do(ctx, st, mark, from)
	sr.Duration = time.Since(start)
	e := st.Expect

	if len(e.Notifications) > 0 {
		mine := r.mine(out.call)
		grace, cancel := context.WithTimeout(ctx, notificationGrace)
		r.col.waitFor(grace, mark, func(n []note) bool { return met(r.sc, e.Notifications, n, mine) })
		cancel()
	}
	var fails []Failure
	switch {
	case out.err != nil && ctx.Err() != nil:
		// Interrupted: the server's answer was never judged.
		sr.Status, sr.Error = Errored, "interrupted: "+out.err.Error()
		return sr
	case out.err != nil:
		if broken(out.err) {
			r.broken = fmt.Sprintf("the connection was lost at step %d (%s): %v", st.Index+1, st.Key(), out.err)
			sr.Status, sr.Error = Errored, out.err.Error()
			r.sc.failed[st.Key()] = true
			return sr
		}
		fails = append(fails, Failure{Expectation: "request", Message: out.err.Error()})
		if e.Error != nil {
			fails[0].Message = "expected a JSON-RPC error response, got: " + out.err.Error()
		}
	case out.rpcErr && e.Error == nil:
		fails = append(fails, Failure{Expectation: "request", Message: "the server answered with an error", Actual: compact(out.doc)})
	case !out.rpcErr && e.Error != nil:
		fails = append(fails, Failure{Expectation: "error", Message: "expected a JSON-RPC error response, got a result", Actual: compact(out.doc)})
	default:
		fails = append(fails, r.check(st, out)...)
	}
	if e.Latency > 0 && sr.Duration > e.Latency {
		fails = append(fails, Failure{Expectation: "latency", Message: fmt.Sprintf("took %s, over the bound of %s", sr.Duration.Round(time.Microsecond), e.Latency)})
	}
	if len(e.Notifications) > 0 {
		fails = append(fails, checkNotifications(r.sc, e.Notifications, r.col.since(mark), r.mine(out.call))...)
	}
	if e.Snapshot && out.err == nil && out.rpcErr == (e.Error != nil) {
		// A step that failed otherwise still shows how its result differs
		// from the snapshot, but never writes a missing one.
		f, written, err := r.snapshot(st, out.doc, len(fails) == 0)
		switch {
		case err != nil:
			fails = append(fails, Failure{Expectation: "snapshot", Message: err.Error()})
		case f != nil:
			fails = append(fails, *f)
		}
		sr.SnapshotWritten = written
	}
	if out.err == nil && !out.rpcErr {
		r.sc.results[st.Key()] = out.doc
	}
	sr.Failures = fails
	sr.Status = Passed
	if len(fails) > 0 {
		sr.Status = Failed
		r.sc.failed[st.Key()] = true
	}
	return sr
}

func (r *run) snapshot(st *Step, doc any, mayWrite bool) (*Failure, bool, error) {
	ignored, err := ignorePaths(doc, append(append([]string(nil), r.s.Ignore...), st.Expect.SnapshotIgnore...))
	if err != nil {
		return nil, false, err
	}
	ignored = ignoreMirrors(doc, ignored)
	return r.opts.Snapshots.check(st.Key(), ignored, r.opts.Update && mayWrite, r.opts.WriteMissing && mayWrite)
}

// check applies a step's expectations about its result (or its expected
// error) document.
func (r *run) check(st *Step, out outcome) []Failure {
	e := st.Expect
	var fails []Failure
	if e.Error != nil && out.rpcErr {
		fails = append(fails, checkError(e.Error, out.doc)...)
	}
	if c := out.call; c != nil && c.res != nil {
		want := false
		if e.IsError != nil {
			want = *e.IsError
		}
		if c.res.IsError != want {
			f := Failure{Expectation: "isError", Message: fmt.Sprintf("isError is %t, expected %t", c.res.IsError, want),
				Expected: fmt.Sprint(want), Actual: fmt.Sprint(c.res.IsError)}
			if c.res.IsError {
				f.Message += ": " + resultText(c.res)
			}
			fails = append(fails, f)
		}
		if e.OutputSchema {
			fails = append(fails, checkOutputSchema(c)...)
		}
	}
	fails = append(fails, checkPaths(r.sc, out.doc, e.Equals, e.Matches, e.Exists, e.Absent)...)
	if e.Schema != nil {
		instance, what := out.doc, "the result"
		if out.call != nil {
			instance, what = nil, "structuredContent"
			if m, ok := out.doc.(map[string]any); ok {
				instance = m["structuredContent"]
			}
			if instance == nil {
				return append(fails, Failure{Expectation: "schema", Message: "the result has no structuredContent to check against the schema"})
			}
		}
		fails = append(fails, checkSchema(e.Schema, instance, what)...)
	}
	return fails
}

func checkError(want *ErrorExpect, doc any) []Failure {
	m, _ := doc.(map[string]any)
	var fails []Failure
	if want.Code != nil {
		got, _ := m["code"].(float64)
		if int64(got) != *want.Code {
			fails = append(fails, Failure{Expectation: "error", Path: "$.code", Message: "a different error code",
				Expected: fmt.Sprint(*want.Code), Actual: compact(m["code"]), Pos: want.Pos.String()})
		}
	}
	if want.Message != "" {
		checks := checkPaths(nil, doc, nil, []PathValue{{Path: "$.message", Value: want.Message, Pos: want.Pos}}, nil, nil)
		for _, f := range checks {
			f.Expectation = "error"
			fails = append(fails, f)
		}
	}
	return fails
}

func checkOutputSchema(c *callState) []Failure {
	switch {
	case c.tool == nil || len(c.tool.OutputSchema) == 0:
		return []Failure{{Expectation: "outputSchema", Message: "the tool declares no outputSchema"}}
	case c.res.StructuredError != "":
		return []Failure{{Expectation: "outputSchema", Message: c.res.StructuredError, Actual: string(c.res.StructuredContent)}}
	}
	return nil
}

func resultText(res *runtime.Result) string {
	for _, c := range res.Content {
		if c.Type == "text" {
			return c.Text
		}
	}
	return "(no text content)"
}

// broken reports an error after which the connection cannot serve the
// rest of the run.
func broken(err error) bool {
	for _, target := range []error{runtime.ErrClosed, runtime.ErrProcessExited, runtime.ErrNotReady, runtime.ErrShutdown, runtime.ErrNotEnabled} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// timeout is the step's own timeout, else the suite's; 0 keeps the
// server's call timeout.
func (r *run) timeout(st *Step) time.Duration {
	if st.Timeout > 0 {
		return st.Timeout
	}
	return r.s.Timeout
}

// do performs a step's request and builds its document.
func (r *run) do(ctx context.Context, st *Step, mark, from int) outcome {
	target, err := r.sc.expandText(st.Target)
	if err != nil {
		return outcome{err: err}
	}
	timeout := r.timeout(st)
	reqCtx := ctx
	if timeout > 0 && st.Kind != KindCall {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	switch st.Kind {
	case KindCall:
		return r.call(ctx, target, st.Args, timeout, st.NoValidate, st.Expect.Error != nil)
	case KindList:
		return r.list(reqCtx, target)
	case KindRead:
		return r.request(reqCtx, "resources/read", map[string]any{"uri": target})
	case KindPrompt:
		args, err := r.sc.expand(st.Args)
		if err != nil {
			return outcome{err: err}
		}
		params := map[string]any{"name": target}
		if args != nil {
			params["arguments"] = args
		}
		return r.request(reqCtx, "prompts/get", params)
	case KindComplete:
		return r.complete(reqCtx, st.Complete)
	case KindSubscribe:
		return r.subscribe(ctx, st, target, mark)
	case KindWait:
		return r.wait(ctx, st, target, from)
	}
	return outcome{err: fmt.Errorf("unknown step kind %q", st.Kind)}
}

// call calls a tool through the runtime (input validation, timeouts,
// progress, tasks). A tool the server does not list is refused by the
// runtime before anything is sent; when the step expects an error, or
// asks for no validation, it is sent anyway (tools/call as a plain
// request), so the server's own answer to an unknown tool can be tested.
func (r *run) call(ctx context.Context, tool string, args any, timeout time.Duration, noValidate, expectError bool) outcome {
	expanded, err := r.sc.expand(args)
	if err != nil {
		return outcome{err: err}
	}
	raw := json.RawMessage("{}")
	if expanded != nil {
		raw, _ = json.Marshal(expanded)
	}
	cs := &callState{ids: map[uint64]bool{}}
	if v, ok := r.rt.Snapshot().Server(r.server); ok {
		for i := range v.Tools {
			if v.Tools[i].ServerTool == tool {
				cs.tool = &v.Tools[i]
			}
		}
	}
	if cs.tool == nil && (noValidate || expectError) {
		return r.unlisted(ctx, tool, raw, timeout)
	}
	res, err := r.rt.Call(ctx, runtime.CallRequest{Server: r.server, Tool: tool, Arguments: raw, Timeout: timeout,
		NoValidate: noValidate, OnStarted: cs.started})
	if out, ok := rpcError(err); ok {
		out.call = cs
		return out
	}
	if err != nil {
		return outcome{err: err, call: cs}
	}
	cs.res = res
	return outcome{doc: CallDocument(res), call: cs}
}

// unlisted sends tools/call for a tool the server does not list.
func (r *run) unlisted(ctx context.Context, tool string, args json.RawMessage, timeout time.Duration) outcome {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	raw, err := r.rt.Request(ctx, r.server, "tools/call", map[string]any{"name": tool, "arguments": args})
	if out, ok := rpcError(err); ok {
		return out
	}
	if err != nil {
		return outcome{err: err}
	}
	var res runtime.Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return outcome{err: fmt.Errorf("decoding the tools/call result: %w", err)}
	}
	return outcome{doc: CallDocument(&res), call: &callState{ids: map[uint64]bool{}, res: &res}}
}

// CallDocument is a tool result as expectations and snapshots see it:
// {"content": [...], "structuredContent": ..., "isError": bool}.
func CallDocument(res *runtime.Result) any {
	content := res.Content
	if content == nil {
		content = []runtime.Content{}
	}
	doc := map[string]any{"content": toDoc(content), "isError": res.IsError}
	if len(res.StructuredContent) > 0 {
		doc["structuredContent"] = rawDoc(res.StructuredContent)
	}
	return doc
}

// envelope are the top-level fields of a result that belong to the
// protocol, not to the answer: paging, the 2026-07-28 result type and
// caching hints, and _meta. They are left out of result documents, so one
// suite and one snapshot serve both eras.
var envelope = []string{"_meta", "resultType", "ttlMs", "cacheScope", "nextCursor"}

// ResultDocument turns a raw result into its document.
func ResultDocument(raw json.RawMessage) (any, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("the result is not JSON: %w", err)
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range envelope {
			delete(m, k)
		}
	}
	return v, nil
}

func (r *run) request(ctx context.Context, method string, params map[string]any) outcome {
	raw, err := r.rt.Request(ctx, r.server, method, params)
	if out, ok := rpcError(err); ok {
		return out
	}
	if err != nil {
		return outcome{err: err}
	}
	doc, err := ResultDocument(raw)
	if err != nil {
		return outcome{err: err}
	}
	return outcome{doc: doc}
}

// rpcError turns a JSON-RPC error response into its document.
func rpcError(err error) (outcome, bool) {
	var re *runtime.RPCError
	if err == nil || !errors.As(err, &re) {
		return outcome{}, false
	}
	doc := map[string]any{"code": float64(re.Code), "message": re.Message}
	if len(re.Data) > 0 {
		doc["data"] = rawDoc(re.Data)
	}
	return outcome{doc: doc, rpcErr: true}, true
}

// maxPages bounds a listing, against a server whose cursor never ends.
const maxPages = 1000

// listItems names the array each listing's result holds.
var listItems = map[string]string{"tools": "tools", "resources": "resources", "templates": "resourceTemplates", "prompts": "prompts"}

func (r *run) list(ctx context.Context, what string) outcome {
	method, field := Listings[what], listItems[what]
	items := []any{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return outcome{err: fmt.Errorf("%s: still paging after %d pages (the server's cursor does not end)", method, maxPages)}
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := r.rt.Request(ctx, r.server, method, params)
		if out, ok := rpcError(err); ok {
			return out
		}
		if err != nil {
			return outcome{err: err}
		}
		var pageDoc struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(raw, &pageDoc)
		doc, err := ResultDocument(raw)
		if err != nil {
			return outcome{err: err}
		}
		m, _ := doc.(map[string]any)
		list, ok := m[field].([]any)
		if !ok && m[field] != nil {
			return outcome{err: fmt.Errorf("%s: %q is not a list in the result", method, field)}
		}
		items = append(items, list...)
		if pageDoc.NextCursor == "" {
			break
		}
		cursor = pageDoc.NextCursor
	}
	return outcome{doc: map[string]any{field: items}}
}

func (r *run) complete(ctx context.Context, c *CompleteSpec) outcome {
	value, err := r.sc.expandText(c.Value)
	if err != nil {
		return outcome{err: err}
	}
	ctxArgs := map[string]string{}
	for k, v := range c.Context {
		if ctxArgs[k], err = r.sc.expandText(v); err != nil {
			return outcome{err: err}
		}
	}
	got, err := r.rt.Complete(ctx, runtime.CompleteRequest{Server: r.server, Ref: runtime.CompletionRef{Prompt: c.Prompt, Template: c.Template},
		Argument: c.Argument, Value: value, Context: ctxArgs})
	if out, ok := rpcError(err); ok {
		return out
	}
	if err != nil {
		return outcome{err: err}
	}
	return outcome{doc: map[string]any{"completion": toDoc(got)}}
}

func (r *run) waitTimeout(st *Step) time.Duration {
	if t := r.timeout(st); t > 0 {
		return t
	}
	return DefaultWait
}

// subscribe subscribes to uri, makes the trigger call if there is one,
// and waits for notifications/resources/updated about uri. The step's
// document is that notification. It unsubscribes before it returns.
func (r *run) subscribe(ctx context.Context, st *Step, uri string, mark int) outcome {
	if err := r.rt.SubscribeResource(ctx, r.server, uri); err != nil {
		if out, ok := rpcError(err); ok {
			return outcome{err: fmt.Errorf("resources/subscribe: %s", compact(out.doc))}
		}
		return outcome{err: err}
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), r.waitTimeout(st))
		defer cancel()
		_ = r.rt.UnsubscribeResource(uctx, r.server, uri)
	}()
	if t := st.Trigger; t != nil {
		tool, err := r.sc.expandText(t.Call)
		if err != nil {
			return outcome{err: err}
		}
		if out := r.call(ctx, tool, t.Args, r.timeout(st), false, false); out.err != nil || out.rpcErr {
			if out.err == nil {
				out.err = fmt.Errorf("the trigger call %s failed: %s", tool, compact(out.doc))
			}
			return outcome{err: fmt.Errorf("trigger: %w", out.err)}
		}
	}
	return r.await(ctx, st, mark, "notifications/resources/updated for "+uri, func(n *note) bool {
		return n.method == "notifications/resources/updated" && n.uri == uri
	})
}

// wait waits for a notification of method (narrowed by where) sent since
// the previous step began; the step's document is the notification.
func (r *run) wait(ctx context.Context, st *Step, method string, from int) outcome {
	return r.await(ctx, st, from, method, func(n *note) bool {
		return n.method == method && len(checkPaths(r.sc, n.doc, st.Where, nil, nil, nil)) == 0
	})
}

// await waits, for the step's wait timeout, for the first notification
// from position from on that match accepts; its document is the
// outcome's. what names it in the error.
func (r *run) await(ctx context.Context, st *Step, from int, what string, match func(*note) bool) outcome {
	timeout := r.waitTimeout(st)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var got *note
	r.col.waitFor(wctx, from, func(notes []note) bool {
		for i := range notes {
			if match(&notes[i]) {
				got = &notes[i]
				return true
			}
		}
		return false
	})
	if got == nil {
		return outcome{err: fmt.Errorf("no %s within %s (got %s)", what, timeout, summarize(r.col.since(from)))}
	}
	return outcome{doc: got.doc}
}
