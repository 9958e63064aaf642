package demoserver

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// traceKeys are the W3C Trace Context keys a client may put, unprefixed,
// into a request's params._meta (OpenTelemetry's MCP conventions, SEP-414).
var traceKeys = []string{"traceparent", "tracestate"}

// maxTraced bounds the requests whose trace context waits for their
// response; a cancelled request is never answered, so its entry would
// otherwise stay forever.
const maxTraced = 1024

// echoTraceContext copies the trace context a request carries in
// params._meta into its result's _meta. The demo server does not trace,
// but echoing what it received lets a client prove end to end that it
// propagates the context of the span it sent the request under. Requests
// without trace context are answered byte for byte as before.
func echoTraceContext() jsonrpc2.ConnOpt {
	e := &traceEcho{pending: map[jsonrpc2.ID]map[string]string{}}
	return func(c *jsonrpc2.Conn) {
		jsonrpc2.OnRecv(e.received)(c)
		jsonrpc2.OnSend(e.sending)(c)
	}
}

// traceEcho remembers each traced request's context until its response is
// sent. received runs on the read loop, sending on whichever goroutine
// answers, hence the lock.
type traceEcho struct {
	mu      sync.Mutex
	pending map[jsonrpc2.ID]map[string]string
}

func (e *traceEcho) received(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if req == nil || resp != nil || req.Notif || req.Params == nil || !bytes.Contains(*req.Params, []byte(`"traceparent"`)) {
		return
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(*req.Params, &p) != nil {
		return
	}
	found := map[string]string{}
	for _, k := range traceKeys {
		if v, ok := p.Meta[k].(string); ok {
			found[k] = v
		}
	}
	if len(found) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) < maxTraced {
		e.pending[req.ID] = found
	}
}

func (e *traceEcho) sending(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil {
		return
	}
	e.mu.Lock()
	found, ok := e.pending[resp.ID]
	delete(e.pending, resp.ID)
	e.mu.Unlock()
	if !ok || resp.Result == nil {
		return
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(*resp.Result, &result) != nil {
		return
	}
	meta := map[string]any{}
	if raw, ok := result["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	for k, v := range found {
		meta[k] = v
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return
	}
	result["_meta"] = m
	out, err := json.Marshal(result)
	if err != nil {
		return
	}
	raw := json.RawMessage(out)
	resp.Result = &raw
}
