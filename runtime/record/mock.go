package record

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"slices"
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

// Sentinel errors of NewMock.
var (
	// ErrNoServer: the recording holds no request to the server asked for.
	ErrNoServer = errors.New("nothing to serve")
	// ErrSeveralServers: no server was named, and the recording has
	// requests of several.
	ErrSeveralServers = errors.New("which server?")
)

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
			return nil, fmt.Errorf("%w: the recording holds no request to any server (record a session that connects one)", ErrNoServer)
		case 1:
			server = servers[0]
		default:
			return nil, fmt.Errorf("%w: the recording has requests of %s: name one of them", ErrSeveralServers, strings.Join(servers, ", "))
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
