package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"mcpdeck/jsonrpc"
)

// ProbeResult is what a modern first request over HTTP says about the
// server's era.
type ProbeResult struct {
	// Modern: the server answered in the 2026-07-28 era: a result, or one
	// of the errors only that era defines. False means legacy: continue
	// with initialize (and, if that is refused too, HTTP+SSE).
	Modern bool
	// Status is the HTTP status of the answer.
	Status int
	// Result is the result, when there was one.
	Result json.RawMessage
	// Error is the JSON-RPC error of the answer, when there was one: for
	// a modern server, -32022 (retry with a version from data.supported),
	// -32021 or -32020 (correct the request); the runtime types it with
	// mcp.FromCode.
	Error *jsonrpc.Error
	// Reason says in words why the era was decided so, for the overview.
	Reason string
}

// Modern error codes a probe recognises: only the 2026-07-28 revision
// defines them (-32020 HeaderMismatch, -32021 MissingRequiredClient-
// Capability, -32022 UnsupportedProtocolVersion).
func modernCode(e *jsonrpc.Error) bool {
	switch e.Code {
	case -32020:
		return true
	case -32021:
		var d struct {
			Required json.RawMessage `json:"requiredCapabilities"`
		}
		return json.Unmarshal(e.Data, &d) == nil && bytes.HasPrefix(bytes.TrimSpace(d.Required), []byte("{"))
	case -32022:
		var d struct {
			Supported []string `json:"supported"`
		}
		return json.Unmarshal(e.Data, &d) == nil && d.Supported != nil
	}
	return false
}

// Probe sends one modern request (frame: usually server/discover with its
// _meta envelope) to opts.URL with the 2026-07-28 headers, and reads the
// era from the answer: a result or a recognised modern error means modern;
// a 4xx without one (400, 404, 405 from a legacy server, the
// specification's fallback signals) means legacy. Rejected credentials, a
// 5xx, or no answer at all are errors: silence from a deployed server is an
// outage, not an era. opts.Modern and the legacy options are ignored.
func Probe(ctx context.Context, opts Options, frame []byte) (ProbeResult, error) {
	opts.Legacy, opts.AutoFallback = false, false
	opts.Modern = &ModernOptions{}
	s, err := Dial(ctx, opts)
	if err != nil {
		return ProbeResult{}, err
	}
	defer s.Close()
	m := classify(frame)
	what := "probing with POST " + m.method + " to"
	x, err := s.exchange(ctx, RawRequest{Frame: frame}, what)
	if x.resp == nil {
		return ProbeResult{}, err
	}
	resp := x.resp
	res := ProbeResult{Status: resp.StatusCode}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode >= 500 {
		return res, s.statusError(what, s.url, resp, x.body)
	}
	if err != nil {
		return res, err
	}
	answer := x.response
	if answer == nil {
		answer = x.body
	}
	var body jsonrpc.Response[json.RawMessage]
	decoded := json.Unmarshal(bytes.TrimSpace(answer), &body) == nil
	if decoded && body.Error != nil {
		res.Error = body.Error.Err()
	}
	switch {
	case decoded && resp.StatusCode/100 == 2 && body.Result != nil:
		res.Modern, res.Result = true, body.Result
		res.Reason = fmt.Sprintf("%s answered %s with a result: a 2026-07-28 server", m.method, resp.Status)
	case res.Error != nil && modernCode(res.Error):
		res.Modern = true
		res.Reason = fmt.Sprintf("%s answered %s with error %d (%s), which only the 2026-07-28 revision defines: a modern server", m.method, resp.Status, res.Error.Code, s.redact.excerpt([]byte(res.Error.Message)))
	case resp.StatusCode/100 == 4:
		res.Reason = fmt.Sprintf("%s answered %s without a modern error (%s): a legacy server; using initialize", m.method, resp.Status, s.redact.excerpt(answer))
	case res.Error != nil:
		res.Reason = fmt.Sprintf("%s answered %s with error %d (%s): a legacy server; using initialize", m.method, resp.Status, res.Error.Code, s.redact.excerpt([]byte(res.Error.Message)))
	default:
		return res, fmt.Errorf("%s %s: %w: answered %s with %q, neither a result nor an error", what, safeURL(s.url), ErrBadResponse, resp.Status, s.redact.excerpt(answer))
	}
	return res, nil
}
