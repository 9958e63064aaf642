package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// HTTPOptions secure the Streamable HTTP endpoint.
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// (Authorization: Bearer TOKEN), checked in constant time. Empty turns
	// authentication off: for tests only; the CLI always sets one.
	Token string
	// AllowedOrigins are browser origins allowed besides loopback ones;
	// any other Origin is refused with 403 (DNS rebinding).
	AllowedOrigins []string
	// LoopbackOnly refuses requests whose Host is not a loopback name:
	// set it when the endpoint is bound to a loopback address.
	LoopbackOnly bool
	// MaxBodySize bounds one POST; 0 means jsonrpc.DefaultMaxMessageSize.
	MaxBodySize int64
	// BodyTimeout bounds how long a POST's body may take to arrive once
	// its headers did; 0 means DefaultBodyTimeout. A body that trickles
	// slower is answered 408 and its connection closed.
	BodyTimeout time.Duration
	// Auth, when set, replaces Token: every request needs a JWT access
	// token Auth verifies, and the client's identity comes from it
	// (jwtauth.go).
	Auth *JWTAuth
}

// Handler returns the Streamable HTTP endpoint: POST for every message,
// with legacy sessions (initialize, Mcp-Session-Id, the GET stream,
// DELETE) and modern stateless requests (the 2026-07-28 headers) side by
// side. Mount it at the path clients are given (mcpdeck uses /mcp).
func (g *Gateway) Handler(opts HTTPOptions) http.Handler { return g.httpHandler(opts) }

// httpHandler is a handler with opts' defaults filled in, for both HTTP
// transports.
func (g *Gateway) httpHandler(opts HTTPOptions) *httpHandler {
	if opts.MaxBodySize <= 0 {
		opts.MaxBodySize = jsonrpc.DefaultMaxMessageSize
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	return &httpHandler{g: g, opts: opts}
}

type httpHandler struct {
	g    *Gateway
	opts HTTPOptions
	// legacy, when set, makes this the HTTP+SSE transport's endpoints
	// (legacysse.go), behind the same checks.
	legacy *legacySSE
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && originOK(r, h.opts.AllowedOrigins) {
		// A browser client (an inspector on localhost) reads the answers
		// of the origins allowed, and the session header.
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
		w.Header().Add("Vary", "Origin")
	}
	refused := func() { dropConnection(w) }
	switch {
	case h.opts.LoopbackOnly && !loopbackName(r.Host):
		refused()
		writeError(w, http.StatusForbidden, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: Host %q is not a loopback name; mcpdeck's gateway answers only http://127.0.0.1 or http://localhost", r.Host))
		return
	case !originOK(r, h.opts.AllowedOrigins):
		refused()
		writeError(w, http.StatusForbidden, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: Origin %q is not allowed; add it to gateway.allowedOrigins in your mcp.json if it should be", r.Header.Get("Origin")))
		return
	case r.Header.Get("Origin") != "" && r.Method == http.MethodOptions:
		preflight(w, r)
		return
	case h.opts.Auth != nil && !h.authorize(w, &r):
		return
	case h.opts.Auth == nil && h.opts.Token != "" && !tokenOK(r, h.opts.Token):
		refused()
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpdeck gateway"`)
		writeError(w, http.StatusUnauthorized, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Unauthorized: send Authorization: Bearer TOKEN with the token mcpdeck printed when it started (or the one in %s, or gateway.token)", EnvToken))
		return
	}
	markAuthenticated(r)
	select {
	case <-h.g.closing:
		writeError(w, http.StatusServiceUnavailable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "mcpdeck's gateway is shutting down"))
		return
	default:
	}
	if h.legacy != nil {
		h.legacy.serve(h, w, r)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
		h.post(w, r, sid)
	case http.MethodGet, http.MethodDelete:
		s := h.g.sessionFor(r, sid)
		switch {
		case sid == "":
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s needs a session (Mcp-Session-Id); 2026-07-28 clients only POST", r.Method))
		case s == nil:
			writeError(w, http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: it ended or mcpdeck restarted; initialize again"))
		case r.Method == http.MethodGet:
			s.stream(w, r)
		default:
			h.g.detach(s.cl, "the client ended its session")
			w.WriteHeader(http.StatusOK)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method %s is not allowed", r.Method))
	}
}

func (h *httpHandler) post(w http.ResponseWriter, r *http.Request, sid string) {
	body, f, ok := h.readMessage(w, r)
	if !ok {
		return
	}
	modern := mcp.EraOf(r.Header.Get("Mcp-Protocol-Version")) == mcp.Modern || hasVersion(f.Params)
	if sid != "" {
		if s := h.g.sessionFor(r, sid); s != nil {
			s.post(w, r, f, body)
			return
		}
		if !modern {
			writeError(w, http.StatusNotFound, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: it ended or mcpdeck restarted; initialize again"))
			return
		}
	}
	switch {
	case f.isRequest() && f.method() == "initialize" && !modern:
		s, err := h.g.newSession(r)
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%v", err))
			return
		}
		s.post(w, r, f, body)
	case modern:
		h.modern(w, r, f, body)
	default:
		writeError(w, http.StatusBadRequest, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Bad Request: no valid session: send initialize first (protocol 2025-11-25 and earlier), or a 2026-07-28 request with the MCP-Protocol-Version header and _meta"))
	}
}

// dropConnection makes the answer being written the connection's last,
// without reading what is left of the request's body: net/http would
// otherwise read up to 256 KiB of it first (to reuse the connection),
// and a body that trickles in, or never comes, would hold the connection
// and its goroutine. A refusal (401, 403) is answered before the body is
// read, so it costs nothing to send a large one.
func dropConnection(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// readMessage reads one JSON-RPC message from a POST's body (readBody)
// and decodes its envelope, for the Streamable HTTP endpoint and the
// legacy HTTP+SSE one alike; on any failure it has answered the client
// (a body that trickles past BodyTimeout also loses its connection) and
// reports false.
func (h *httpHandler) readMessage(w http.ResponseWriter, r *http.Request) ([]byte, *frame, bool) {
	body, err := h.readBody(w, r)
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		dropConnection(w)
		writeError(w, http.StatusRequestTimeout, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the request body did not arrive within %s; send it whole", h.opts.BodyTimeout))
		return nil, nil, false
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the message is larger than %d bytes", h.opts.MaxBodySize))
		return nil, nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeParseError, "reading the request: %v", err))
		return nil, nil, false
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per POST"))
		return nil, nil, false
	}
	f := new(frame)
	if err := json.Unmarshal(body, f); err != nil {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error: %v", err))
		return nil, nil, false
	}
	if !f.isRequest() && !f.isNotification() && !f.isResponse() {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "not a JSON-RPC request, notification or response"))
		return nil, nil, false
	}
	return body, f, true
}

// readBody reads a POST's body within BodyTimeout and MaxBodySize. The
// deadline is lifted once the body is in: the answer may stream for long
// after, and the server reads on to notice a client that goes away.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodySize))
	_ = rc.SetReadDeadline(time.Time{})
	return body, err
}

// modern serves a stateless 2026-07-28 POST.
func (h *httpHandler) modern(w http.ResponseWriter, r *http.Request, f *frame, body []byte) {
	if f.isNotification() {
		// 2026-07-28 defines none over HTTP (closing a stream cancels), but
		// clients still send notifications/cancelled: accept and ignore.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	env, _, err := parseEnvelope(f.Params)
	if err == nil && env == nil {
		err = invalidParams("_meta[%q] is missing: every 2026-07-28 request carries its protocol version, capabilities and client info in _meta", mcp.MetaProtocolVersion)
	}
	if err == nil {
		err = h.g.checkHeaders(r, f, env)
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		writeError(w, http.StatusBadRequest, f.ID, rpc)
		return
	}
	switch {
	case f.isResponse():
		writeError(w, http.StatusBadRequest, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "2026-07-28 clients send no responses: servers ask for input with input_required"))
		return
	case !knownMethod(f.method()) || slices.Contains(legacyOnly, f.method()) || f.method() == "ping":
		writeError(w, http.StatusNotFound, f.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", f.method()))
		return
	}
	cl, done, err := h.g.statelessClient(env, f.method(), r.RemoteAddr, IdentityFrom(r.Context()))
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%v", err))
		return
	}
	defer done()
	st := &exchangeStream{first: body, x: newExchange(w, acceptsSSE(r) && streams(f.method()), nil), cl: cl, closed: make(chan struct{})}
	h.g.serveExchange(r, cl, st)
}

// checkHeaders is the 2026-07-28 server validation: the headers that
// mirror the body must be there and agree with it.
func (g *Gateway) checkHeaders(r *http.Request, f *frame, env *envelope) error {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != env.version {
		if v == "" {
			return headerMismatch("the MCP-Protocol-Version header is missing (the body says %s)", env.version)
		}
		return headerMismatch("MCP-Protocol-Version header value %q does not match the body's %q", v, env.version)
	}
	if v := r.Header.Get("Mcp-Method"); v != f.method() {
		if v == "" {
			return headerMismatch("the Mcp-Method header is missing (the body says %s)", f.method())
		}
		return headerMismatch("Mcp-Method header value %q does not match body value %q", v, f.method())
	}
	var p reqParams
	_ = json.Unmarshal(f.Params, &p)
	var name string
	switch f.method() {
	case "tools/call", "prompts/get":
		name = p.Name
	case "resources/read":
		name = p.URI
	default:
		return nil
	}
	raw := r.Header.Get("Mcp-Name")
	got, ok := decodeHeaderValue(raw)
	switch {
	case raw == "":
		return headerMismatch("the Mcp-Name header is missing (the body says %q)", name)
	case !ok:
		return headerMismatch("Mcp-Name header value %q is malformed", raw)
	case got != name:
		return headerMismatch("Mcp-Name header value %q does not match body value %q", got, name)
	}
	if f.method() != "tools/call" {
		return nil
	}
	tool := g.catalog().toolByName[p.Name]
	if tool == nil {
		return nil // answered as an unknown tool
	}
	headers, err := mcphttp.ToolHeaders(tool.InputSchema)
	if err != nil {
		return nil // an HTTP client drops such a tool; nothing to check against
	}
	for _, ph := range headers {
		want, kind, present := argumentAt(p.Arguments, ph.Path)
		raw := r.Header.Get("Mcp-Param-" + ph.Name)
		if !present {
			continue
		}
		got, ok := decodeHeaderValue(raw)
		switch {
		case raw == "":
			return headerMismatch("the Mcp-Param-%s header is missing (the argument %s is %s)", ph.Name, strings.Join(ph.Path, "."), want)
		case !ok:
			return headerMismatch("Mcp-Param-%s header value %q is malformed", ph.Name, raw)
		case kind == "number" && !sameNumber(got, want), kind != "number" && got != want:
			return headerMismatch("Mcp-Param-%s header value %q does not match body value %q", ph.Name, got, want)
		}
	}
	return nil
}

// decodeHeaderValue undoes the =?base64?…?= encoding; ok is false for a
// value with characters a header may not carry, or bad Base64.
func decodeHeaderValue(v string) (string, bool) {
	if s, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if s, ok = strings.CutSuffix(s, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			return string(b), err == nil
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	return v, true
}

// argumentAt renders the argument at path as its header would carry it,
// with its kind; present is false when there is none (or it is null).
func argumentAt(args json.RawMessage, path []string) (value, kind string, present bool) {
	raw := args
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return "", "", false
		}
		var ok bool
		if raw, ok = obj[key]; !ok {
			return "", "", false
		}
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return "", "", false
	case raw[0] == '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, "string", true
	case bytes.Equal(raw, []byte("true")), bytes.Equal(raw, []byte("false")):
		return string(raw), "boolean", true
	}
	return string(raw), "number", true
}

func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && !math.IsNaN(x) && x == y
}

// preflight answers a browser's CORS preflight for an allowed origin (the
// Origin check already refused the others); it carries no token.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// acceptsSSE reports whether the client takes an SSE answer.
func acceptsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// writeError answers an HTTP request with a JSON-RPC error (id null when
// the request's is unknown).
func writeError(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body := map[string]any{"code": e.Code, "message": e.Message}
	if len(e.Data) > 0 {
		body["data"] = json.RawMessage(e.Data)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": body})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
