package record

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// MockOptions tune how a Mock answers.
type MockOptions struct {
	// Speed scales the recorded pace of what is sent during a request and
	// of its answer: 1 as recorded, 2 twice as fast, 0 at once.
	Speed float64
}

// Peer is the connection a Mock answers on: notifications and requests
// to the client. *jsonrpc.Conn is one.
type Peer interface {
	Notify(ctx context.Context, method string, params any) error
	Call(ctx context.Context, method string, params any, opts ...jsonrpc.CallOption) (stdjson.RawMessage, error)
}

// Answer answers one request as the recorded server did (see Mock); peer
// carries what is sent before the answer. It returns when the answer is
// due, or with ctx's error when the request is cancelled first.
func (m *Mock) Answer(ctx context.Context, peer Peer, req *jsonrpc.Request, opts MockOptions) (any, error) {
	key, decoded, token := exchangeKey(req.Method, req.Params)
	state := slices.Contains(stateMethods, req.Method)
	x := m.pick(key, state)
	if x == nil {
		if state && slices.Contains(acknowledged, req.Method) {
			return struct{}{}, nil
		}
		return nil, m.nearest(req.Method, decoded)
	}
	start := time.Now()
	wait := func(at time.Duration) error {
		if state || opts.Speed <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(time.Until(start.Add(time.Duration(float64(at) / opts.Speed))))
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, s := range x.steps {
		if err := wait(s.at); err != nil {
			return nil, err
		}
		params := s.params
		switch {
		case s.method == "notifications/progress":
			if len(token) == 0 {
				continue // the request asked for no progress
			}
			params = withField(params, "progressToken", token)
		case s.method == "notifications/subscriptions/acknowledged":
			params = withMeta(params, mcp.MetaSubscriptionID, stdjson.RawMessage(req.ID))
		}
		var err error
		if s.request {
			_, err = peer.Call(ctx, s.method, params)
			var rpc *jsonrpc.Error
			if errors.As(err, &rpc) {
				err = nil // the client's answer is its own business
			}
		} else {
			err = peer.Notify(ctx, s.method, params)
		}
		if err != nil {
			return nil, err
		}
	}
	if x.answer == nil {
		<-ctx.Done() // never answered in the recording: held until cancelled
		return nil, ctx.Err()
	}
	if err := wait(x.answer.at); err != nil {
		return nil, err
	}
	switch a := x.answer; {
	case a.cut:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the recorded answer to this %s (seq %d of the recording) was cut at the trace limit (64 KiB) and cannot be served", req.Method, x.seq)
	case a.err != nil:
		return nil, a.err
	default:
		return a.result, nil
	}
}

// pick chooses the recorded exchange for a request's key: the last
// answered one for a state method, else the next in the sequence.
func (m *Mock) pick(key string, state bool) *mockExchange {
	xs := m.byKey[key]
	if len(xs) == 0 {
		return nil
	}
	if state {
		for i := len(xs) - 1; i >= 0; i-- {
			if xs[i].answer != nil {
				return xs[i]
			}
		}
		return xs[len(xs)-1]
	}
	m.mu.Lock()
	n := m.served[key]
	m.served[key] = n + 1
	m.mu.Unlock()
	return xs[min(n, len(xs)-1)]
}

// nearest is the error for a request nothing recorded matches: -32602
// naming the closest recorded request of the same method and target, or
// -32601 for a method the recording never saw.
func (m *Mock) nearest(method string, params any) error {
	xs := m.byMethod[method]
	if len(xs) == 0 {
		return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s (the recording has no %s request to answer it from)", method, method)
	}
	target, what := targetOf(method, params)
	var same []*mockExchange
	var others []string
	for _, x := range xs {
		t, _ := targetOf(method, x.params)
		if t == target {
			same = append(same, x)
		} else if !slices.Contains(others, t) {
			others = append(others, t)
		}
	}
	if len(same) == 0 {
		sort.Strings(others)
		if target == "" {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no recorded %s has these params", method)
		}
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%s %q: the recording has no %s of it; recorded: %s", what, target, method, strings.Join(quoteAll(others), ", "))
	}
	var best *mockExchange
	var bestDiffs []Difference
	for _, x := range same {
		var diffs []Difference
		diff(nil, x.params, params, nil, &diffs)
		if best == nil || len(diffs) < len(bestDiffs) {
			best, bestDiffs = x, diffs
		}
	}
	var where []string
	for _, d := range bestDiffs {
		where = append(where, fmt.Sprintf("%s is %s there, %s here", d.Path, d.Recorded, d.Live))
	}
	nearest, shown := best.params, "params"
	if p, ok := best.params.(map[string]any); ok && p["arguments"] != nil {
		nearest, shown = p["arguments"], "arguments"
	}
	e := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "the recording has no %s of %s %q with these %s; the nearest recorded (seq %d) had %s %s: %s",
		method, what, target, shown, best.seq, shown, show(nearest, true), strings.Join(where, "; "))
	e.Data, _ = stdjson.Marshal(map[string]any{"nearest": nearest, "recordedSeq": best.seq})
	return e
}

// targetOf is what a request is about (the tool, prompt, resource or
// completion reference) and the word for it; "" when nothing in
// particular.
func targetOf(method string, params any) (target, what string) {
	p, _ := params.(map[string]any)
	str := func(v any) string { s, _ := v.(string); return s }
	switch method {
	case "tools/call":
		return str(p["name"]), "tool"
	case "prompts/get":
		return str(p["name"]), "prompt"
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return str(p["uri"]), "resource"
	case "completion/complete":
		ref, _ := p["ref"].(map[string]any)
		return str(ref["name"]) + str(ref["uri"]), "reference"
	case "tasks/get", "tasks/result", "tasks/cancel":
		return str(p["taskId"]), "task"
	}
	return "", ""
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// withField sets a top-level member of a JSON object.
func withField(obj stdjson.RawMessage, key string, v stdjson.RawMessage) stdjson.RawMessage {
	var fields map[string]stdjson.RawMessage
	if stdjson.Unmarshal(obj, &fields) != nil || fields == nil {
		fields = map[string]stdjson.RawMessage{}
	}
	fields[key] = v
	out, _ := stdjson.Marshal(fields)
	return out
}

// withMeta sets a member of a JSON object's _meta.
func withMeta(obj stdjson.RawMessage, key string, v stdjson.RawMessage) stdjson.RawMessage {
	var fields map[string]stdjson.RawMessage
	if stdjson.Unmarshal(obj, &fields) != nil || fields == nil {
		fields = map[string]stdjson.RawMessage{}
	}
	return withField(obj, "_meta", withField(fields["_meta"], key, v))
}
