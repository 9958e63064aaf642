package record

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// A Mock is the recorded server's side of a recording: every request the
// client sent it, what the server sent back while the request was open
// (progress, log messages, questions for the client) and its answer, so
// that the same requests can be answered again as the server answered
// them. It is the upstream of `replay --serve`: the runtime connects to
// it as to any stdio server (ServeMock), and mcpdeck's gateway serves that
// runtime to clients, in both protocol eras.
//
// How a request is answered:
//
//   - The handshake and the lists (initialize, server/discover, tools/list,
//     prompts/list, resources/list, resources/templates/list, a page given
//     by its cursor) and logging/setLevel and resources/subscribe get the
//     last recorded answer to the same params: the server as the
//     recording last saw it.
//   - Every other request is matched on its method and params (without
//     _meta; ids never count). The n-th identical request gets the n-th
//     recorded answer, and the last one after that, so a sequence (a task
//     polled until it completes, a counter) replays in order. What the
//     server sent during the request is sent again first, in order, at
//     the recorded pace scaled by MockOptions.Speed: progress under the
//     new request's progressToken, log messages, and requests to the
//     client (elicitation, sampling, roots), whose answers are awaited and
//     not compared. A request the recording never saw answered (cancelled,
//     or the session ended first) is held open until it is cancelled, as
//     the server held it.
//   - A request matched by nothing recorded is answered -32602 naming the
//     nearest recorded one: the same tool (prompt, resource, completion
//     reference) with other arguments, and what differs; or the tools that
//     were called when this one never was. A method the recording never
//     saw is -32601. ping is always answered.
//
// Not replayed: notifications the server sent outside any request
// (list_changed, resource updates of a subscription, a heartbeat log), and
// frames cut at the trace limit (64 KiB): such an answer is a -32603 that
// says so.
type Mock struct {
	// Server is the recorded server's name.
	Server string
	// Era is the era of its last handshake: "legacy" (initialize) or
	// "modern" (server/discover); Version the protocol version it agreed.
	Era, Version string
	// Info is the serverInfo it gave.
	Info mcp.Implementation

	byKey    map[string][]*mockExchange // method and params → recorded exchanges, in order
	byMethod map[string][]*mockExchange // every recorded exchange of a method, in order

	mu     sync.Mutex
	served map[string]int // key → answers given
}

// mockExchange is one recorded request of the client and everything the
// server did about it.
type mockExchange struct {
	seq    uint64
	method string
	key    string
	params any                // decoded, without _meta: for the nearest match
	token  stdjson.RawMessage // the recorded request's progressToken
	start  time.Time
	steps  []mockStep
	answer *mockStep // nil: never answered
}

// mockStep is one message the server sent while a request was open, or
// its answer.
type mockStep struct {
	at      time.Duration // after the request
	request bool          // a request to the client, awaited
	method  string
	params  stdjson.RawMessage
	result  stdjson.RawMessage
	err     *jsonrpc.Error
	cut     bool // the frame was cut at the trace limit
}

// stateMethods are answered with the last recorded answer: they describe
// the server rather than ask it to do something.
var stateMethods = []string{"initialize", mcp.MethodDiscover, "tools/list", "prompts/list", "resources/list",
	"resources/templates/list", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}

// acknowledged are requests any server accepts with an empty result; a
// recording that never saw one still has it answered.
var acknowledged = []string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe"}

// callMethods are the requests that do something; what the server sends
// while one is open (log messages, resource updates, questions) belongs to
// the newest one.
var callMethods = []string{"tools/call", "prompts/get", "resources/read", "completion/complete", "tasks/result"}

// ErrNoServer: the recording holds no request to the server asked for.
var ErrNoServer = errors.New("nothing to serve")

// wireMessage is a recorded frame, decoded.
type wireMessage struct {
	ID     stdjson.RawMessage   `json:"id"`
	Method string               `json:"method"`
	Params stdjson.RawMessage   `json:"params"`
	Result stdjson.RawMessage   `json:"result"`
	Error  *jsonrpc.ErrorObject `json:"error"`
}

// NewMock indexes the exchanges of server in rec ("" when the recording
// has one server's only).
func NewMock(rec *Recording, server string) (*Mock, error) {
	if server == "" {
		servers := MockServers(rec)
		switch len(servers) {
		case 0:
			return nil, fmt.Errorf("%w: the recording holds no request to any server (record a session that connects one, with --record)", ErrNoServer)
		case 1:
			server = servers[0]
		default:
			return nil, fmt.Errorf("the recording has requests of %s: name the one to serve with --server", strings.Join(servers, ", "))
		}
	}
	m := &Mock{Server: server, byKey: map[string][]*mockExchange{}, byMethod: map[string][]*mockExchange{}, served: map[string]int{}}
	open := map[string]*mockExchange{} // by the request's id
	var calls []*mockExchange          // the open calls, oldest first
	for _, e := range rec.Entries {
		tf, ok := e.Event.(runtime.TrafficFrame)
		if !ok || tf.Server != server {
			continue
		}
		f := tf.Frame
		var msg wireMessage
		whole := len(f.Raw) > 0 && stdjson.Unmarshal(f.Raw, &msg) == nil
		switch {
		case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindRequest:
			if !whole {
				continue // cut at the trace limit: nothing to match it by
			}
			x := &mockExchange{seq: e.Seq, method: f.Method, start: f.Time}
			x.key, x.params, x.token = exchangeKey(f.Method, msg.Params)
			open[f.ID] = x
			m.byKey[x.key] = append(m.byKey[x.key], x)
			m.byMethod[x.method] = append(m.byMethod[x.method], x)
			if slices.Contains(callMethods, x.method) {
				calls = append(calls, x)
			}
		case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindNotification && f.Method == "notifications/cancelled":
			var p jsonrpc.CancelledParams
			if whole && stdjson.Unmarshal(msg.Params, &p) == nil {
				id := strings.Trim(string(p.RequestID), `"`)
				delete(open, id)
				calls = slices.DeleteFunc(calls, func(x *mockExchange) bool { return !isOpen(open, x) })
			}
		case f.Dir == jsonrpc.In && (f.Kind == jsonrpc.KindResult || f.Kind == jsonrpc.KindError):
			x := open[f.ID]
			if x == nil {
				continue
			}
			delete(open, f.ID)
			calls = slices.DeleteFunc(calls, func(c *mockExchange) bool { return c == x })
			step := &mockStep{at: f.Time.Sub(x.start), cut: !whole}
			switch {
			case !whole:
			case msg.Error != nil:
				step.err = &jsonrpc.Error{Code: msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data}
			default:
				step.result = msg.Result
				if len(step.result) == 0 {
					step.result = stdjson.RawMessage("{}")
				}
			}
			x.answer = step
			if msg.Error == nil && whole {
				m.noteHandshake(x.method, msg.Result)
			}
		case f.Dir == jsonrpc.In && f.Kind == jsonrpc.KindNotification && whole:
			m.attachNotification(f, msg, open, calls)
		case f.Dir == jsonrpc.In && f.Kind == jsonrpc.KindRequest && whole && len(calls) > 0:
			x := calls[len(calls)-1]
			x.steps = append(x.steps, mockStep{at: f.Time.Sub(x.start), request: true, method: msg.Method, params: msg.Params})
		}
	}
	if len(m.byMethod) == 0 {
		return nil, fmt.Errorf("%w: the recording holds no request to %q (its servers: %s)", ErrNoServer, server, strings.Join(MockServers(rec), ", "))
	}
	if m.Era == "" {
		return nil, fmt.Errorf("the recording of %q has no answered initialize or server/discover: a mock cannot say what the server is (record a session from its start)", server)
	}
	return m, nil
}

// MockServers lists the servers a recording has client requests of, in
// the order they first appear.
func MockServers(rec *Recording) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range rec.Entries {
		tf, ok := e.Event.(runtime.TrafficFrame)
		if ok && tf.Frame.Dir == jsonrpc.Out && tf.Frame.Kind == jsonrpc.KindRequest && !seen[tf.Server] {
			seen[tf.Server] = true
			out = append(out, tf.Server)
		}
	}
	return out
}

func isOpen(open map[string]*mockExchange, x *mockExchange) bool {
	for _, o := range open {
		if o == x {
			return true
		}
	}
	return false
}

// noteHandshake takes the era and version of an answered handshake.
func (m *Mock) noteHandshake(method string, result stdjson.RawMessage) {
	switch method {
	case "initialize":
		var r mcp.InitializeResult
		if stdjson.Unmarshal(result, &r) == nil {
			m.Era, m.Version, m.Info = EraLegacy, r.ProtocolVersion, r.ServerInfo
		}
	case mcp.MethodDiscover:
		m.Era, m.Version = EraModern, mcp.LatestModern
		var r struct {
			Meta map[string]stdjson.RawMessage `json:"_meta"`
		}
		if stdjson.Unmarshal(result, &r) == nil {
			_ = stdjson.Unmarshal(r.Meta[mcp.MetaServerInfo], &m.Info)
		}
	}
}

// attachNotification files a notification from the server under the
// request it belongs to: progress by its token, a listen stream's by its
// subscription id, anything else under the newest open call. What belongs
// to none (list_changed, a heartbeat) is not replayed.
func (m *Mock) attachNotification(f jsonrpc.Frame, msg wireMessage, open map[string]*mockExchange, calls []*mockExchange) {
	if strings.HasSuffix(msg.Method, "/list_changed") {
		return
	}
	var p struct {
		Token stdjson.RawMessage            `json:"progressToken"`
		Meta  map[string]stdjson.RawMessage `json:"_meta"`
	}
	_ = stdjson.Unmarshal(msg.Params, &p)
	var x *mockExchange
	switch {
	case msg.Method == "notifications/progress":
		for _, o := range open {
			if len(o.token) > 0 && bytes.Equal(canonical(o.token), canonical(p.Token)) {
				x = o
			}
		}
	case p.Meta[mcp.MetaSubscriptionID] != nil:
		x = open[strings.Trim(string(p.Meta[mcp.MetaSubscriptionID]), `"`)]
	case len(calls) > 0:
		x = calls[len(calls)-1]
	}
	if x != nil {
		x.steps = append(x.steps, mockStep{at: f.Time.Sub(x.start), method: msg.Method, params: msg.Params})
	}
}

// exchangeKey is what a request is matched by: its method and its params
// without _meta, canonical; with the params decoded and the progress token
// the request carried.
func exchangeKey(method string, params stdjson.RawMessage) (key string, decoded any, token stdjson.RawMessage) {
	var fields map[string]stdjson.RawMessage
	if len(params) > 0 && stdjson.Unmarshal(params, &fields) == nil {
		if meta := fields["_meta"]; meta != nil {
			var mm map[string]stdjson.RawMessage
			if stdjson.Unmarshal(meta, &mm) == nil {
				token = mm["progressToken"]
			}
			delete(fields, "_meta")
		}
		params, _ = stdjson.Marshal(fields)
	}
	if method == "initialize" || method == mcp.MethodDiscover {
		params = nil // who asks, and with which capabilities, does not change the server
	}
	_ = decodeNumbers(params, &decoded)
	return method + "\x00" + string(canonical(params)), decoded, token
}

// canonical re-encodes JSON with object keys sorted and numbers as
// written, so equal values compare equal as bytes.
func canonical(raw []byte) []byte {
	var v any
	if len(bytes.TrimSpace(raw)) == 0 || decodeNumbers(raw, &v) != nil {
		return bytes.TrimSpace(raw)
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil // {} and no params at all are the same request
	}
	b, _ := stdjson.Marshal(v)
	return b
}

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

// ServeMock answers m's requests on a byte stream, one JSON-RPC message a
// line (the stdio transport): in is what the client writes, out what it
// reads. It returns when the client closes in or ctx ends; in is closed
// by then.
func ServeMock(ctx context.Context, m *Mock, in io.ReadCloser, out io.Writer, opts MockOptions) error {
	ready := make(chan struct{})
	var conn *jsonrpc.Conn
	conn = jsonrpc.NewConn(jsonrpc.NewStdioStream(in, out, in, jsonrpc.StdioOptions{}), jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			return m.Answer(ctx, conn, req, opts)
		},
	})
	close(ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	_ = conn.Close()
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, jsonrpc.ErrClosedByClient) {
		return fmt.Errorf("serving the recording of %q: %w", m.Server, err)
	}
	return nil
}

// maxPages bounds how many pages of one list are followed (a server whose
// cursors go round in circles).
const maxPages = 1000

// Listing is what the recorded server last listed, every page of each
// list followed by its cursor, as the mock serves it. A list the recording
// never asked for is empty.
func (m *Mock) Listing() (Listing, error) {
	out := Listing{Lists: map[string][]stdjson.RawMessage{}}
	for _, k := range ListKinds {
		cursor := ""
		for page := 0; ; page++ {
			var params stdjson.RawMessage
			if cursor != "" {
				params, _ = stdjson.Marshal(map[string]string{"cursor": cursor})
			}
			key, _, _ := exchangeKey(k.Method, params)
			x := m.pick(key, true)
			if x == nil || x.answer == nil || x.answer.err != nil || x.answer.cut {
				if page == 0 {
					break
				}
				return out, fmt.Errorf("the recording has %d page(s) of %s but not the one after cursor %q", page, k.Field, cursor)
			}
			items, next, err := PageOf(k, x.answer.result)
			if err != nil {
				return out, fmt.Errorf("the recorded %s (seq %d): %w", k.Method, x.seq, err)
			}
			out.Lists[k.Field] = append(out.Lists[k.Field], items...)
			if next == "" || page+1 >= maxPages {
				break
			}
			cursor = next
		}
	}
	return out, nil
}
