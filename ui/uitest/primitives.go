package uitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// The fake's primitives follow the real controller's rules: a request
// needs MCP on and the server ready, an undeclared capability is
// runtime.ErrUnsupported, requests are numbered per server, every
// request is announced with RequestStarted and RequestFinished, and
// subscriptions, log levels and roots are published in the snapshot and
// announced with their events.

// ready finds a server that can take a request, as the controller's
// resolve does. r.mu must be held.
func (r *Runtime) ready(server, method string) (runtime.ServerSnapshot, error) {
	v, ok := r.snap.Server(server)
	switch {
	case !ok:
		return v, &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindUnknownServer, Server: server, Method: method,
			Message: fmt.Sprintf("unknown server %q", server)}}
	case !r.snap.Enabled:
		return v, &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindNotEnabled, Server: server, Method: method, Message: "mcp is not enabled"}}
	case !v.State.Live():
		return v, &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindNotReady, Server: server, Method: method, Message: fmt.Sprintf("%q is %s", server, v.State)}}
	}
	return v, nil
}

// request runs one request's bookkeeping around answer: the id, the
// started and finished events.
func (r *Runtime) request(server, method, target string, answer func() (json.RawMessage, error)) (json.RawMessage, error) {
	r.mu.Lock()
	if _, err := r.ready(server, method); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	id, now := r.startRequestLocked(server, method, "")
	r.mu.Unlock()
	raw, err := answer()
	r.mu.Lock()
	r.forgetRequestLocked(server, id)
	r.mu.Unlock()
	fin := runtime.RequestFinished{EventHeader: runtime.EventHeader{Time: now, Server: server}, ID: id, Method: method}
	if err != nil {
		fin.Err = err.Error()
	}
	r.Emit(fin)
	r.record("%s %s %s", method, server, target)
	return raw, err
}

func unsupported(server, method, what string) error {
	return &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindProtocol, Server: server, Method: method,
		Message: fmt.Sprintf("%q does not declare %s: %s", server, what, runtime.ErrUnsupported)}}
}

func declares(v runtime.ServerSnapshot, capability string) bool {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(v.Capabilities, &caps)
	_, ok := caps[capability]
	return ok
}

// ReadResource answers from Contents (by URI), else with a text of the
// URI; a URI in Contents mapped to nil is "not found".
func (r *Runtime) ReadResource(_ context.Context, server, uri string) (json.RawMessage, error) {
	return r.request(server, "resources/read", uri, func() (json.RawMessage, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.reads[uri]++
		if raw, ok := r.Contents[uri]; ok {
			if raw == nil {
				return nil, &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32002, Server: server, Method: "resources/read",
					Message: "resource not found: " + uri}}
			}
			return raw, nil
		}
		body, _ := json.Marshal(map[string]any{"contents": []map[string]any{{"uri": uri, "mimeType": "text/plain",
			"text": fmt.Sprintf("contents of %s (read %d)", uri, r.reads[uri])}}})
		return body, nil
	})
}

// Reads is how often uri was read.
func (r *Runtime) Reads(uri string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads[uri]
}

// SubscribeResource records the subscription in the snapshot and
// announces it, as the controller does.
func (r *Runtime) SubscribeResource(ctx context.Context, server, uri string) error {
	return r.subscription(server, uri, true)
}

// UnsubscribeResource ends a subscription.
func (r *Runtime) UnsubscribeResource(ctx context.Context, server, uri string) error {
	return r.subscription(server, uri, false)
}

func (r *Runtime) subscription(server, uri string, on bool) error {
	method := "resources/subscribe"
	if !on {
		method = "resources/unsubscribe"
	}
	r.mu.Lock()
	v, err := r.ready(server, method)
	if err == nil && !strings.Contains(string(v.Capabilities), `"subscribe":true`) {
		err = unsupported(server, method, "resource subscriptions")
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = r.request(server, method, uri, func() (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(runtime.SubscriptionChanged{EventHeader: runtime.EventHeader{Time: r.snap.At, Server: server}, URI: uri, Subscribed: on})
	r.publishServerLocked(server, func(_ *runtime.Snapshot, srv *runtime.ServerSnapshot) {
		subs := slices.DeleteFunc(slices.Clone(srv.Subscriptions), func(u string) bool { return u == uri })
		if on {
			subs = append(subs, uri)
			slices.Sort(subs)
		}
		srv.Subscriptions = subs
	})
	return nil
}

// UpdateResource is the server's notifications/resources/updated.
func (r *Runtime) UpdateResource(server, uri string) {
	r.Emit(runtime.ResourceUpdated{EventHeader: runtime.EventHeader{Time: Clock, Server: server}, URI: uri})
}

// GetPrompt answers from PromptFunc, else with one user message quoting
// the arguments.
func (r *Runtime) GetPrompt(_ context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	return r.request(server, "prompts/get", name, func() (json.RawMessage, error) {
		r.mu.Lock()
		fn := r.PromptFunc
		r.mu.Unlock()
		if fn != nil {
			return fn(name, args)
		}
		keys := make([]string, 0, len(args))
		for k, v := range args {
			keys = append(keys, k+"="+v)
		}
		slices.Sort(keys)
		body, _ := json.Marshal(map[string]any{"description": "prompt " + name, "messages": []map[string]any{
			{"role": "user", "content": map[string]string{"type": "text", "text": name + " with " + strings.Join(keys, ", ")}}}})
		return body, nil
	})
}

// Complete offers the Completions values that start with the value typed
// (any argument), as a server's completion/complete would.
func (r *Runtime) Complete(_ context.Context, req runtime.CompleteRequest) (*runtime.Completion, error) {
	r.mu.Lock()
	v, err := r.ready(req.Server, "completion/complete")
	if err == nil && !declares(v, "completions") {
		err = unsupported(req.Server, "completion/complete", "completions")
	}
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var out runtime.Completion
	_, err = r.request(req.Server, "completion/complete", req.Argument+"="+req.Value, func() (json.RawMessage, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		out.Values = []string{}
		for _, c := range r.Completions {
			if strings.HasPrefix(strings.ToLower(c), strings.ToLower(req.Value)) {
				out.Values = append(out.Values, c)
			}
		}
		out.Total = len(out.Values)
		return nil, nil
	})
	return &out, err
}

// SetLogLevel publishes the level in force and announces it.
func (r *Runtime) SetLogLevel(_ context.Context, server, level string) error {
	if !slices.Contains(runtime.LogLevels, level) {
		return &runtime.CallError{Info: runtime.ErrorInfo{Kind: runtime.KindInvalidArguments, Server: server, Method: "logging/setLevel", Message: "log level " + level}}
	}
	r.mu.Lock()
	v, err := r.ready(server, "logging/setLevel")
	if err == nil && !declares(v, "logging") {
		err = unsupported(server, "logging/setLevel", "logging")
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	if _, err := r.request(server, "logging/setLevel", level, func() (json.RawMessage, error) { return json.RawMessage(`{}`), nil }); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(runtime.LogLevelSet{EventHeader: runtime.EventHeader{Time: r.snap.At, Server: server}, Level: level})
	r.publishServerLocked(server, func(_ *runtime.Snapshot, srv *runtime.ServerSnapshot) { srv.LogLevel = level })
	return nil
}

// SetRoots publishes the roots and announces them; like the controller it
// needs only a known server, not a connection.
func (r *Runtime) SetRoots(_ context.Context, server string, dirs []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("roots %s %s", server, strings.Join(dirs, " "))
	if _, ok := r.snap.Server(server); !ok {
		return fmt.Errorf("roots of %q: %w", server, runtime.ErrUnknownServer)
	}
	var roots []runtime.Root
	for _, d := range dirs {
		roots = append(roots, runtime.Root{URI: "file://" + d, Name: d[strings.LastIndex(d, "/")+1:]})
	}
	r.emitLocked(runtime.RootsChanged{EventHeader: runtime.EventHeader{Time: r.snap.At, Server: server}, Roots: roots})
	r.publishServerLocked(server, func(_ *runtime.Snapshot, srv *runtime.ServerSnapshot) { srv.Roots = roots })
	return nil
}

// History is the calls made through Call, oldest first.
func (r *Runtime) History() ([]runtime.CallRecord, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.history), r.HistoryDropped
}

// addHistory records a finished call as the controller's history does.
func (r *Runtime) addHistory(req runtime.CallRequest, id uint64, res *runtime.Result, err error) {
	rec := runtime.CallRecord{Server: req.Server, Tool: req.Tool, Arguments: req.Arguments, Started: Clock,
		Duration: 1500 * time.Microsecond, RequestID: id, Result: res}
	if len(rec.Arguments) == 0 {
		rec.Arguments = json.RawMessage(`{}`)
	}
	switch {
	case err != nil:
		rec.Status = runtime.CallFailed
		rec.Err = &runtime.ErrorInfo{Server: req.Server, Method: "tools/call", Message: err.Error()}
		if ce := (*runtime.CallError)(nil); errors.As(err, &ce) {
			info := ce.Info // as the controller keeps it: the JSON-RPC code too
			rec.Err = &info
		}
	case res != nil && res.IsError:
		rec.Status = runtime.CallToolError
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Seq = uint64(len(r.history)) + 1 + r.HistoryDropped
	r.history = append(r.history, rec)
}

// Configure replaces the configuration while MCP is off, as the
// controller does; Configured is what it was given last.
func (r *Runtime) Configure(_ context.Context, cfg *config.Config) (runtime.Plan, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("configure")
	if r.snap.Enabled {
		return runtime.Plan{}, fmt.Errorf("configuring while MCP is on: %w (reload instead)", runtime.ErrRefused)
	}
	r.Configured = cfg
	return r.ReloadPlan, nil
}
