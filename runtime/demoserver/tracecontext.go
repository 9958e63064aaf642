package demoserver

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceKeys are the W3C Trace Context keys a client may put, unprefixed,
// into a request's params._meta (OpenTelemetry's MCP conventions, SEP-414).
var traceKeys = []string{"traceparent", "tracestate"}

// emptyResults are the methods whose go-sdk result is an empty object that
// cannot carry _meta.
var emptyResults = map[string]bool{"ping": true, "logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true}

// echoTraceContext copies the trace context a request carries in
// params._meta into its result's _meta. The demo server does not trace,
// but echoing what it received lets a client prove end to end that it
// propagates the context of the span it sent the request under. Requests
// without trace context are answered as before, with no _meta.
func echoTraceContext(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	found := traceContext(req.GetParams())
	res, err := next(ctx, method, req)
	if len(found) == 0 || err != nil || res == nil || emptyResults[method] || reflect.ValueOf(res).IsNil() {
		return res, err
	}
	meta := res.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range found {
		meta[k] = v
	}
	res.SetMeta(meta)
	return res, nil
}

// traceContext is the trace context in p's _meta, if any. Params absent
// from the request arrive as a nil pointer.
func traceContext(p mcp.Params) map[string]string {
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil
	}
	var found map[string]string
	for _, k := range traceKeys {
		if v, ok := p.GetMeta()[k].(string); ok {
			if found == nil {
				found = map[string]string{}
			}
			found[k] = v
		}
	}
	return found
}
