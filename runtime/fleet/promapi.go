package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"mcpdeck/jsonrpc/mcphttp"
)

// promAPI asks the Prometheus HTTP query API (/api/v1/query and
// /api/v1/query_range) through net/http and encoding/json. It speaks the
// API the way Prometheus' own Go client does (client_golang/api), which
// the fleet used before: a form-encoded POST, a GET when the store
// refuses POST (403, 405, 501), the same error kinds; it exists so that
// mcpdeck does not link that client and its JSON library (json-iterator,
// reflect2), whose package inits every mcpdeck start paid for.
type promAPI struct {
	base   *url.URL
	client *http.Client
}

// Error kinds of the API's error envelope ("errorType"), and the ones the
// client gives an HTTP status that carries none.
const (
	promErrBadData     = "bad_data"
	promErrBadResponse = "bad_response"
	promErrServer      = "server_error"
	promErrClient      = "client_error"
)

// promError is an error Prometheus (or whatever answered in its place)
// returned: its kind, its message and, for an answer that was not the
// API's JSON, the body.
type promError struct {
	Type   string
	Msg    string
	Detail string
}

func (e *promError) Error() string { return e.Type + ": " + e.Msg }

func newPromAPI(address string, rt http.RoundTripper) (*promAPI, error) {
	u, err := url.Parse(address)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return &promAPI{base: u, client: &http.Client{Transport: rt, CheckRedirect: sameOrigin}}, nil
}

// sameOrigin follows a store's redirects within its own origin only: the
// configured headers carry credentials (Authorization, X-Scope-OrgID), and
// net/http would send all but Authorization to another host, as the MCP
// transports' policy (mcphttp.CheckRedirect) says. A redirect elsewhere
// fails, naming where it led.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if !mcphttp.SameOrigin(req.URL, via[0].URL) {
		return fmt.Errorf("%w: the Prometheus at %s redirected to %s; mcpdeck does not send the configured headers to another origin: give the final URL",
			ErrRedirected, mcphttp.Origin(via[0].URL), mcphttp.Origin(req.URL))
	}
	if len(via) >= 5 {
		return fmt.Errorf("%w: the Prometheus at %s redirected more than 5 times: give the final URL", ErrRedirected, mcphttp.Origin(via[0].URL))
	}
	return nil
}

// query runs an instant query at ts.
func (p *promAPI) query(ctx context.Context, query string, ts time.Time) (vector, []string, error) {
	args := url.Values{"query": {query}, "time": {promTime(ts)}}
	var v vector
	warn, err := p.do(ctx, "/api/v1/query", args, valVector, &v)
	return v, warn, err
}

// queryRange runs a range query from start to end in steps of step.
func (p *promAPI) queryRange(ctx context.Context, query string, start, end time.Time, step time.Duration) (matrix, []string, error) {
	args := url.Values{"query": {query}, "start": {promTime(start)}, "end": {promTime(end)},
		"step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	var m matrix
	warn, err := p.do(ctx, "/api/v1/query_range", args, valMatrix, &m)
	return m, warn, err
}

func promTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
}

// do POSTs args to the endpoint ep, or GETs them where the store does not
// take a POST, and decodes the result, of type want, into into.
func (p *promAPI) do(ctx context.Context, ep string, args url.Values, want valueType, into any) ([]string, error) {
	u := *p.base
	u.Path = path.Join(p.base.Path, ep)
	enc := args.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(enc))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// A zero-length idempotency key lets the transport retry the POST on
	// a dropped keep-alive connection, as it would a GET; it is not sent.
	req.Header["Idempotency-Key"] = nil
	code, warn, err := p.send(req, want, into)
	if code == http.StatusForbidden || code == http.StatusMethodNotAllowed || code == http.StatusNotImplemented {
		u.RawQuery = enc
		if req, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil); err != nil {
			return warn, err
		}
		_, warn, err = p.send(req, want, into)
	}
	return warn, err
}

// promResponse is the API's envelope.
type promResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
}

// send sends req and reads its answer; code is the HTTP status, 0 when
// there was none.
func (p *promAPI) send(req *http.Request, want valueType, into any) (code int, warn []string, err error) {
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	code = resp.StatusCode
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			err = ctxErr
		}
		return code, nil, err
	}
	var env promResponse
	if code/100 != 2 {
		// Prometheus answers 400 and 422 with its error envelope; any
		// other status, or a body that is not the envelope, is named by
		// the status.
		if code != http.StatusBadRequest && code != http.StatusUnprocessableEntity || json.Unmarshal(body, &env) != nil {
			return code, nil, statusError(code, body)
		}
		if env.Status == "success" {
			return code, env.Warnings, &promError{Type: promErrBadResponse, Msg: "inconsistent body for response code"}
		}
		if env.ErrorType == "" {
			env.ErrorType = promErrClient
		}
		if env.Error == "" {
			env.Error = fmt.Sprintf("client error: %d", code)
		}
		return code, env.Warnings, &promError{Type: env.ErrorType, Msg: env.Error}
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return code, nil, &promError{Type: promErrBadResponse, Msg: err.Error()}
	}
	if env.Status == "error" {
		return code, env.Warnings, &promError{Type: env.ErrorType, Msg: env.Error}
	}
	var data struct {
		Type   valueType       `json:"resultType"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(env.Data, &data); err != nil {
		return code, env.Warnings, &promError{Type: promErrBadResponse, Msg: err.Error()}
	}
	switch {
	case data.Type != valScalar && data.Type != valVector && data.Type != valMatrix:
		return code, env.Warnings, &promError{Type: promErrBadResponse, Msg: fmt.Sprintf("unexpected value type %q", data.Type)}
	case data.Type != want:
		// Another shape of result than the query gives (a scalar for a
		// vector) reads as no series, as it did through client_golang.
		return code, env.Warnings, nil
	}
	if err := json.Unmarshal(data.Result, into); err != nil {
		return code, env.Warnings, &promError{Type: promErrBadResponse, Msg: err.Error()}
	}
	return code, env.Warnings, nil
}

// statusError names an HTTP status that carries no API error.
func statusError(code int, body []byte) error {
	switch code / 100 {
	case 4:
		return &promError{Type: promErrClient, Msg: fmt.Sprintf("client error: %d", code), Detail: string(body)}
	case 5:
		return &promError{Type: promErrServer, Msg: fmt.Sprintf("server error: %d", code), Detail: string(body)}
	}
	return &promError{Type: promErrBadResponse, Msg: fmt.Sprintf("bad response code %d", code), Detail: string(body)}
}
