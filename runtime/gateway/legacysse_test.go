package gateway

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// serveLegacy serves g's HTTP+SSE endpoints at /sse and /message next to
// /mcp, with opts, and returns the /sse URL.
func serveLegacy(t testing.TB, g *Gateway, opts HTTPOptions) string {
	t.Helper()
	mux := newHTTPMux(g, opts)
	legacy := g.LegacySSEHandler(opts, "/message")
	mux.Handle("/sse", legacy)
	mux.Handle("/message", legacy)
	return strings.TrimSuffix(serveMux(t, mux), "/mcp") + "/sse"
}

// TestLegacySSEGoSDKClient: the go-sdk's (deprecated) HTTP+SSE client
// uses the gateway as a 2024-11-05 server would be used: it initializes,
// lists, calls, gets progress and answers an elicitation that a server
// asks during its call, all over one stream; closing the stream detaches
// it.
func TestLegacySSEGoSDKClient(t *testing.T) {
	g := newGateway(t, newRuntime(t, peerServer("peer")), Options{})
	url := serveLegacy(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true})
	ev := newClientEvents()
	c := goClient("old-ide", ev)
	cs, err := c.Connect(ctxFor(t, 20*time.Second), &mcp.SSEClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2024-11-05"})
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2024-11-05" {
		t.Errorf("negotiated %s", v)
	}
	ctx := ctxFor(t, 30*time.Second)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || !strings.Contains(toolNames(tools.Tools), "peer__echo") {
		t.Fatalf("tools: %v %v", err, tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "over sse"}})
	if err != nil || textOf(res) != "over sse" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 0.2}, Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || res.IsError {
		t.Fatalf("slow: %v %+v", err, res)
	}
	waitFor(t, "progress", ev.progress, func(p *mcp.ProgressNotificationParams) bool { return p.ProgressToken == "p1" })
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__ask", Arguments: map[string]any{}})
	if err != nil || textOf(res) != "Hello, octocat!" {
		t.Fatalf("ask: %v %+v", err, res)
	}
	waitFor(t, "the elicitation", ev.elicited, nil)
	info := clientNamed(g, "old-ide")
	if info.Session != "sse" || info.Protocol != "2024-11-05" {
		t.Errorf("client info %+v", info)
	}
	events, stop := g.Subscribe()
	defer stop()
	cs.Close()
	waitFor(t, "the client detached", events, func(e Event) bool {
		d, ok := e.(ClientDetached)
		return ok && d.Client.Name == "old-ide"
	})
}

// TestLegacySSETSClient: the TypeScript SDK v2's SSEClientTransport, the
// client old tools still ship, runs the whole script (list, call,
// progress, cancellation, elicitation, a list change) over it.
func TestLegacySSETSClient(t *testing.T) {
	jsonrpctest.Node(t)
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveLegacy(t, g, HTTPOptions{LoopbackOnly: true})
	got := jsonrpctest.RunTSClient(t, nil, "--era", "legacy", "--echo", "peer__echo", "--slow", "peer__slow", "--ask", "peer__ask", "--add", "peer__add_tool", "--sse", url)
	for _, want := range []string{"connected", "tools", "call", "progress", "cancelled", "elicitation", "list_changed", "done"} {
		found := false
		for _, e := range got {
			found = found || e.Event == want
		}
		if !found {
			t.Errorf("no %s event over HTTP+SSE: %+v", want, got)
		}
	}
}

// TestLegacySSERefusals: the same checks as Streamable HTTP (the token),
// and the transport's own: a stream needs Accept: text/event-stream, a
// message needs a live session, one message per POST.
func TestLegacySSERefusals(t *testing.T) {
	g := newGateway(t, newRuntime(t, peerServer("peer")), Options{})
	url := serveLegacy(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true, BodyTimeout: 2 * time.Second})
	base := strings.TrimSuffix(url, "/sse")
	do := func(method, u, accept, body string, token bool) (*http.Response, string) {
		req, _ := http.NewRequest(method, u, strings.NewReader(body))
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if token {
			req.Header.Set("Authorization", "Bearer "+testToken)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	if resp, _ := do("GET", url, "text/event-stream", "", false); resp.StatusCode != 401 {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	if resp, body := do("GET", url, "application/json", "", true); resp.StatusCode != 406 || !strings.Contains(body, "text/event-stream") {
		t.Errorf("no SSE accepted: %d %s", resp.StatusCode, body)
	}
	if resp, body := do("POST", base+"/message?sessionId=nope", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, true); resp.StatusCode != 404 || !strings.Contains(body, "open the stream (GET) again") {
		t.Errorf("unknown session: %d %s", resp.StatusCode, body)
	}

	// A real stream: its endpoint event, then a batch refused and a ping
	// answered on the stream.
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	readEvent := func() (name, data string) {
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && data != "":
				return name, data
			}
		}
	}
	name, endpoint := readEvent()
	if name != "endpoint" || !strings.HasPrefix(endpoint, "/message?sessionId=") {
		t.Fatalf("first event %q %q", name, endpoint)
	}
	if resp, body := do("POST", base+endpoint, "", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, true); resp.StatusCode != 400 || !strings.Contains(body, "batches") {
		t.Errorf("a batch: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do("POST", base+endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, true); resp.StatusCode != 202 {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	if name, data := readEvent(); name != "message" || !strings.Contains(data, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize's answer: %q %s", name, data)
	}

	// A message whose body never finishes is cut off as on the Streamable
	// HTTP endpoint (it used to hold the connection for ever).
	raw := dialRaw(t, strings.TrimPrefix(base, "http://"))
	raw.postTo(endpoint, testToken, 1000, `{"jsonrpc":"2.0",`)
	if status, body := raw.response(20 * time.Second); status != http.StatusRequestTimeout || !strings.Contains(body, "did not arrive within 2s") {
		t.Fatalf("a trickling message: %d %s", status, body)
	}
	raw.closedWithin(5 * time.Second)
}
