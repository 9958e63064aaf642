package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime/mcp"
)

// modernMeta is the _meta of a raw 2026-07-28 request.
func modernMeta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`
}

// rawPost POSTs body to url with the token and headers (name, value pairs).
func rawPost(t testing.TB, url, body string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// modernHeaders are the request metadata headers of a raw modern request.
func modernHeaders(method, name string) []string {
	h := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

// rpcAnswer is a JSON-RPC response as the tests read it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Params json.RawMessage `json:"params"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeAnswer(t testing.TB, resp *http.Response) rpcAnswer {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		msgs := readSSE(t, resp.Body)
		for m := range msgs {
			if m.ID != nil && m.Method == "" {
				return m
			}
		}
		t.Fatal("the SSE stream ended without an answer")
	}
	var a rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("decoding the answer (status %d): %v", resp.StatusCode, err)
	}
	return a
}

// readSSE reads messages from an SSE body until it ends.
func readSSE(t testing.TB, body io.Reader) <-chan rpcAnswer {
	out := make(chan rpcAnswer, 64)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m rpcAnswer
			if json.Unmarshal([]byte(data), &m) == nil {
				out <- m
			}
		}
	}()
	return out
}

// The transport's own refusals, before any method runs.
func TestHTTPTransportRefusals(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta(`{}`) + `}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"peer__echo","arguments":{"text":"x"},` + modernMeta(`{}`) + `}}`
	cases := []struct {
		name    string
		body    string
		headers []string
		status  int
		code    int
		says    string
	}{
		{"no protocol header", discover, []string{"Mcp-Method", "server/discover"}, 400, mcp.CodeHeaderMismatch, "MCP-Protocol-Version header is missing"},
		{"method header mismatch", discover, modernHeaders("tools/list", ""), 400, mcp.CodeHeaderMismatch, `Mcp-Method header value "tools/list" does not match body value "server/discover"`},
		{"no name header", call, modernHeaders("tools/call", ""), 400, mcp.CodeHeaderMismatch, "Mcp-Name header is missing"},
		{"name header mismatch", call, modernHeaders("tools/call", "peer__ask"), 400, mcp.CodeHeaderMismatch, `Mcp-Name header value "peer__ask" does not match body value "peer__echo"`},
		{"base64 name header", call, modernHeaders("tools/call", "=?base64?cGVlcl9fZWNobw==?="), 200, 0, ""},
		{"unsupported version", strings.Replace(discover, `"2026-07-28"`, `"2099-01-01"`, 1), modernHeaders("server/discover", ""), 400, mcp.CodeUnsupportedVersion, "Unsupported protocol version: 2099-01-01"},
		{"no capabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			modernHeaders("tools/list", ""), 400, -32602, "clientCapabilities"},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate","params":{` + modernMeta(`{}`) + `}}`, modernHeaders("tools/frobnicate", ""), 404, -32601, "Method not found"},
		{"ping is gone", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + modernMeta(`{}`) + `}}`, modernHeaders("ping", ""), 404, -32601, "Method not found"},
		{"no session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, 400, -32600, "no valid session"},
		{"unknown session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Mcp-Session-Id", "nope"}, 404, -32600, "session not found"},
		{"batch", `[` + discover + `]`, modernHeaders("server/discover", ""), 400, -32600, "batches are not supported"},
		{"not json", `{`, nil, 400, -32700, "Parse error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, url, tc.body, tc.headers...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			a := decodeAnswer(t, resp)
			if tc.code == 0 {
				if a.Error != nil {
					t.Fatalf("error %+v", a.Error)
				}
				return
			}
			if a.Error == nil || a.Error.Code != tc.code || !strings.Contains(a.Error.Message, tc.says) {
				t.Fatalf("answer %+v, want code %d saying %q", a.Error, tc.code, tc.says)
			}
		})
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s without a session: %d, want 405", method, resp.StatusCode)
		}
	}
}

// The endpoint's security: the bearer token, Origin and Host.
func TestHTTPSecurity(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t)
	g := newGateway(t, rt, Options{})
	url := serveMux(t, newHTTPMux(g, HTTPOptions{Token: testToken, LoopbackOnly: true, AllowedOrigins: []string{"https://app.example"}}))
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta(`{}`) + `}}`
	h := modernHeaders("server/discover", "")
	cases := []struct {
		name    string
		headers []string
		status  int
	}{
		{"the token", h, 200},
		{"no token", slices.Concat(h, []string{"Authorization", ""}), 401},
		{"a wrong token", slices.Concat(h, []string{"Authorization", "Bearer " + testToken + "x"}), 401},
		{"not bearer", slices.Concat(h, []string{"Authorization", "Basic " + testToken}), 401},
		{"a loopback origin", slices.Concat(h, []string{"Origin", "http://localhost:5173"}), 200},
		{"an allowed origin", slices.Concat(h, []string{"Origin", "https://app.example"}), 200},
		{"a foreign origin", slices.Concat(h, []string{"Origin", "https://evil.example"}), 403},
		{"a rebound host", slices.Concat(h, []string{"Host", "evil.example:8080"}), 403},
		{"localhost", slices.Concat(h, []string{"Host", "localhost"}), 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, url, discover, tc.headers...)
			if resp.StatusCode != tc.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			if tc.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// A browser on an allowed origin gets CORS answers; others are refused
// before anything runs.
func TestCORS(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t)
	g := newGateway(t, rt, Options{})
	url := serveMux(t, newHTTPMux(g, HTTPOptions{Token: testToken, LoopbackOnly: true}))
	for origin, want := range map[string]int{"http://localhost:6274": http.StatusNoContent, "https://evil.example": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodOptions, url, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("preflight from %s: %d, want %d", origin, resp.StatusCode, want)
		}
		if want == http.StatusNoContent && (resp.Header.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "authorization")) {
			t.Fatalf("preflight headers: %v", resp.Header)
		}
	}
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta(`{}`)+`}}`,
		slices.Concat(modernHeaders("server/discover", ""), []string{"Origin", "http://localhost:6274"})...)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Fatalf("a request from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestBindRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr          string
		remote, token bool
		ok            bool
		loopback      bool
	}{
		{"127.0.0.1:0", false, false, true, true},
		{"localhost:8080", false, false, true, true},
		{"[::1]:8080", false, false, true, true},
		{":8080", false, false, false, false},
		{"0.0.0.0:8080", true, false, false, false},
		{"0.0.0.0:8080", true, true, true, false},
		{"192.168.1.5:8080", false, true, false, false},
	} {
		token := ""
		if tc.token {
			token = NewToken()
		}
		err := CheckBind(tc.addr, tc.remote, token, tc.token)
		if (err == nil) != tc.ok || IsLoopback(tc.addr) != tc.loopback {
			t.Errorf("%s remote=%v token=%v: %v (loopback %v)", tc.addr, tc.remote, tc.token, err, IsLoopback(tc.addr))
		}
	}
	if a, b := NewToken(), NewToken(); a == b || len(a) < 40 {
		t.Errorf("tokens %q %q", a, b)
	}
}

// A modern client's MRTR round trip, on the wire: the server's elicitation
// comes back as input_required, and the retry continues the server's
// exchange.
func TestMRTRWire(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	caps := `{"elicitation":{"form":{}}}`
	ask := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"peer__ask","arguments":{},` + modernMeta(caps) + `}}`
	a := decodeAnswer(t, rawPost(t, url, ask, modernHeaders("tools/call", "peer__ask")...))
	var ir struct {
		ResultType    string                      `json:"resultType"`
		InputRequests map[string]mcp.InputRequest `json:"inputRequests"`
		RequestState  string                      `json:"requestState"`
		Meta          map[string]json.RawMessage  `json:"_meta"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &ir) != nil || ir.ResultType != "input_required" || len(ir.InputRequests) != 1 || ir.RequestState == "" {
		t.Fatalf("first round: %+v %s", a.Error, a.Result)
	}
	if _, ok := ir.Meta[mcp.MetaServerInfo]; !ok {
		t.Errorf("no serverInfo in _meta: %s", a.Result)
	}
	var key string
	for k, req := range ir.InputRequests {
		e, err := req.Elicitation()
		if err != nil || e.Message != "What is your name?" {
			t.Fatalf("input request %s: %+v %v", k, e, err)
		}
		key = k
	}
	if in := g.Clients()[0].InFlight; len(in) != 1 || !in[0].WaitingForInput {
		t.Fatalf("the parked request, in flight for the client: %+v", in)
	}

	retry := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"peer__ask","arguments":{},"inputResponses":{"` + key +
		`":{"action":"accept","content":{"name":"wire"}}},"requestState":"` + ir.RequestState + `",` + modernMeta(caps) + `}}`
	a = decodeAnswer(t, rawPost(t, url, retry, modernHeaders("tools/call", "peer__ask")...))
	var done struct {
		ResultType string `json:"resultType"`
		Content    []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &done) != nil || done.ResultType != "complete" || len(done.Content) != 1 || done.Content[0].Text != "Hello, wire!" {
		t.Fatalf("retry: %+v %s", a.Error, a.Result)
	}

	// The state is spent; a made-up one is refused.
	a = decodeAnswer(t, rawPost(t, url, retry, modernHeaders("tools/call", "peer__ask")...))
	if a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, "requestState is unknown or expired") {
		t.Fatalf("a spent requestState: %+v %s", a.Error, a.Result)
	}
}

// An input_required question the client never answers is cancelled after
// InputTimeout: the server's request is cancelled too. The timeout must
// outlast the look at the Clients view that follows the first round: at
// 200ms, a test descheduled for 300ms there found the request abandoned.
func TestMRTRAbandoned(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{InputTimeout: 2 * time.Second})
	url := serveHTTP(t, g)
	events, stop := g.Subscribe()
	defer stop()
	ask := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"peer__ask","arguments":{},` + modernMeta(`{"elicitation":{}}`) + `}}`
	a := decodeAnswer(t, rawPost(t, url, ask, modernHeaders("tools/call", "peer__ask")...))
	if a.Error != nil || !strings.Contains(string(a.Result), "input_required") {
		t.Fatalf("first round: %+v %s", a.Error, a.Result)
	}
	// The Clients view shows the request waiting for the client, until it
	// is abandoned and its slot given back.
	if in := g.Clients()[0].InFlight; len(in) != 1 || !in[0].WaitingForInput || in[0].Name != "peer__ask" {
		t.Fatalf("in flight while parked: %+v", in)
	}
	waitFor(t, "the request parked", events, func(e Event) bool {
		u, ok := e.(ClientUpdated)
		return ok && slices.ContainsFunc(u.Client.InFlight, func(r Request) bool { return r.WaitingForInput })
	})
	waitFor(t, "the parked request abandoned", events, func(e Event) bool {
		u, ok := e.(ClientUpdated)
		return ok && len(u.Client.InFlight) == 0
	})
	if n := len(g.Clients()[0].InFlight); n != 0 {
		t.Fatalf("%d requests in flight after the abandon", n)
	}
}

// Shutting the gateway down ends every client stream cleanly: a listen
// stream gets its final answer, a legacy GET stream and a stdio client end.
func TestShutdownEndsStreams(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := New(rt, Options{})
	url := serveHTTP(t, g)
	events, stop := g.Subscribe()
	defer stop()

	listen := rawPost(t, url, `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta(`{}`)+`}}`,
		modernHeaders("subscriptions/listen", "")...)
	if listen.StatusCode != 200 || !strings.HasPrefix(listen.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: %d %s", listen.StatusCode, listen.Header.Get("Content-Type"))
	}
	msgs := readSSE(t, listen.Body)
	ack := waitFor(t, "the acknowledgement", msgs, nil)
	if ack.Method != mcp.NotificationAcknowledged || !strings.Contains(string(ack.Params), `"io.modelcontextprotocol/subscriptionId":"L1"`) || !strings.Contains(string(ack.Params), `"toolsListChanged":true`) {
		t.Fatalf("ack: %s %s", ack.Method, ack.Params)
	}

	// A legacy session with its GET stream open.
	init := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-legacy","version":"0"}}}`)
	sid := init.Header.Get("Mcp-Session-Id")
	if sid == "" || decodeAnswer(t, init).Error != nil {
		t.Fatal("initialize opened no session")
	}
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	get, err := http.DefaultClient.Do(req)
	if err != nil || get.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, get)
	}
	defer get.Body.Close()
	getEnded := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, get.Body); close(getEnded) }()

	// A stdio client.
	ev := newClientEvents()
	cs := connect(t, goClient("stdio", ev), pipeTransport(t, g), "legacy")
	waitListening(t, g, events, "raw")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	final := waitFor(t, "the listen stream's final answer", msgs, func(m rpcAnswer) bool { return m.ID != nil })
	if string(final.ID) != `"L1"` || !strings.Contains(string(final.Result), `"resultType":"complete"`) || !strings.Contains(string(final.Result), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
		t.Fatalf("final answer: %s %s", final.ID, final.Result)
	}
	for range msgs { // the stream ends after it
	}
	select {
	case <-getEnded:
	case <-ctx.Done():
		t.Fatal("the GET stream did not end")
	}
	waitDone := make(chan error, 1)
	go func() { waitDone <- cs.Wait() }()
	select {
	case <-waitDone:
	case <-ctx.Done():
		t.Fatal("the stdio client's connection did not end")
	}
	if n := len(g.Clients()); n != 0 {
		t.Fatalf("%d clients after Close", n)
	}
	// Later requests are refused.
	if resp := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %d", resp.StatusCode)
	}
}

// A tool with an x-mcp-header parameter: the header must mirror the
// argument (2026-07-28 server validation).
func TestParamHeaders(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	body := func(region string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"peer__region_echo","arguments":{"region":` + region + `,"text":"t"},` + modernMeta(`{}`) + `}}`
	}
	h := modernHeaders("tools/call", "peer__region_echo")
	for _, tc := range []struct {
		name, region string
		headers      []string
		status       int
	}{
		{"mirrored", `"eu-west"`, slices.Concat(h, []string{"Mcp-Param-Region", "eu-west"}), 200},
		{"base64", `" padded "`, slices.Concat(h, []string{"Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?="}), 200},
		{"missing", `"eu-west"`, h, 400},
		{"different", `"eu-west"`, slices.Concat(h, []string{"Mcp-Param-Region", "us-east"}), 400},
		{"absent argument", `null`, h, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, url, body(tc.region), tc.headers...)
			a := decodeAnswer(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %+v", resp.StatusCode, tc.status, a.Error)
			}
			if tc.status == 400 && (a.Error == nil || a.Error.Code != mcp.CodeHeaderMismatch || !strings.Contains(a.Error.Message, "Mcp-Param-Region")) {
				t.Fatalf("refusal: %+v", a.Error)
			}
		})
	}
}
