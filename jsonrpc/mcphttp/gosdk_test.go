package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
)

type echoIn struct {
	Text string `json:"text"`
}

// newSDKServer builds a Go SDK server with tools for these tests: echo,
// progress (reports progress against the caller's token), block (waits
// for cancellation) and add-tool (adds a tool, which makes the server send
// notifications/tools/list_changed on the standalone stream).
func newSDKServer() (*mcp.Server, <-chan struct{}) {
	blocked := make(chan struct{}, 8)
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "reports progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3}); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "waits until cancelled"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			blocked <- struct{}{}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add-tool", Description: "adds a tool"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Text}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil, nil
		})
	return s, blocked
}

func startSDKStreamable(t testing.TB, opts *mcp.StreamableHTTPOptions) (*httptest.Server, *recorder, <-chan struct{}) {
	srv, blocked := newSDKServer()
	rec := &recorder{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return ts, rec, blocked
}

func TestGoSDKStreamable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"sse-responses", nil},
		{"json-responses", &mcp.StreamableHTTPOptions{JSONResponse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, rec, blocked := startSDKStreamable(t, tc.opts)
			c := dial(t, mcphttp.Options{URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer s3cret-token"}})
			c.initialize(t)
			if c.stream.SessionID() == "" {
				t.Fatal("no session id captured from the initialize response")
			}
			if got := c.stream.ProtocolVersion(); got != "2025-11-25" {
				t.Fatalf("negotiated version %q, want 2025-11-25", got)
			}
			if names := c.toolNames(t); !slices.Contains(names, "echo") {
				t.Fatalf("tools/list = %v, want echo among them", names)
			}
			res, err := c.callTool(ctxT(t), "echo", map[string]any{"text": "hello"}, nil)
			if err != nil || res.text() != "hello" {
				t.Fatalf("echo = %+v, %v", res, err)
			}

			// Progress arrives before the result, on the request's stream
			// (or, with JSON responses, on the standalone stream).
			res, err = c.callTool(ctxT(t), "progress", map[string]any{}, map[string]any{"progressToken": "tok-1"})
			if err != nil || res.text() != "done" {
				t.Fatalf("progress tool = %+v, %v", res, err)
			}
			c.waitNote(t, "notifications/progress")

			// A notification the server sends outside any request arrives
			// on the standalone GET stream.
			if _, err := c.callTool(ctxT(t), "add-tool", map[string]any{"text": "late"}, nil); err != nil {
				t.Fatal(err)
			}
			c.waitNote(t, "notifications/tools/list_changed")

			// Cancellation: the call is rejected locally, and the
			// connection stays usable.
			ctx, cancel := context.WithCancel(ctxT(t))
			errc := make(chan error, 1)
			go func() { _, err := c.callTool(ctx, "block", map[string]any{}, nil); errc <- err }()
			waitSignal(t, blocked, "the block tool to start")
			cancel()
			if err := <-errc; !errors.Is(err, jsonrpc.ErrCancelled) {
				t.Fatalf("cancelled call: %v, want ErrCancelled", err)
			}
			if res, err := c.callTool(ctxT(t), "echo", map[string]any{"text": "again"}, nil); err != nil || res.text() != "again" {
				t.Fatalf("echo after cancel = %+v, %v", res, err)
			}

			sid := c.stream.SessionID()
			c.conn.Close()
			checkHeaders(t, rec.requests(), sid)
		})
	}
}

// checkHeaders verifies what every request carried: the configured
// header everywhere, the session id and protocol version after
// initialize, a GET stream, and a DELETE at the end.
func checkHeaders(t *testing.T, reqs []seen, sid string) {
	t.Helper()
	var gets, deletes int
	for i, r := range reqs {
		if got := r.Header.Get("Authorization"); got != "Bearer s3cret-token" {
			t.Errorf("request %d (%s) Authorization = %q", i, r.Method, got)
		}
		if i == 0 {
			continue // initialize: no session yet
		}
		if got := r.Header.Get("Mcp-Session-Id"); got != sid {
			t.Errorf("request %d (%s) Mcp-Session-Id = %q, want %q", i, r.Method, got, sid)
		}
		if got := r.Header.Get("Mcp-Protocol-Version"); got != "2025-11-25" {
			t.Errorf("request %d (%s) Mcp-Protocol-Version = %q", i, r.Method, got)
		}
		switch r.Method {
		case http.MethodGet:
			gets++
		case http.MethodDelete:
			deletes++
		case http.MethodPost:
			if acc := r.Header.Get("Accept"); !strings.Contains(acc, "application/json") || !strings.Contains(acc, "text/event-stream") {
				t.Errorf("POST Accept = %q", acc)
			}
		}
	}
	if gets == 0 {
		t.Error("the standalone GET stream was never opened")
	}
	if deletes != 1 {
		t.Errorf("%d DELETE requests, want 1", deletes)
	}
}

// waitSignal waits for one value on ch.
func waitSignal[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("waited %s for %s", waitLimit, what)
		panic("unreachable")
	}
}

func TestGoSDKStateless(t *testing.T) {
	t.Parallel()
	ts, rec, _ := startSDKStreamable(t, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	c := dial(t, mcphttp.Options{URL: ts.URL})
	c.initialize(t)
	if res, err := c.callTool(ctxT(t), "echo", map[string]any{"text": "hi"}, nil); err != nil || res.text() != "hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	c.conn.Close()
	// The stateless server answers GET with 405, which must be accepted
	// quietly: the connection above kept working.
	var get405 bool
	for _, r := range rec.requests() {
		if r.Method == http.MethodGet {
			get405 = true
		}
	}
	if !get405 {
		t.Fatal("no GET attempted")
	}
}

func TestGoSDKLegacySSE(t *testing.T) {
	t.Parallel()
	srv, _ := newSDKServer()
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	c := dial(t, mcphttp.Options{URL: ts.URL, Legacy: true})
	if got := c.stream.Transport(); got != mcphttp.TransportSSE {
		t.Fatalf("Transport() = %q", got)
	}
	c.initialize(t)
	if res, err := c.callTool(ctxT(t), "echo", map[string]any{"text": "legacy"}, nil); err != nil || res.text() != "legacy" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if _, err := c.callTool(ctxT(t), "progress", map[string]any{}, map[string]any{"progressToken": 7}); err != nil {
		t.Fatal(err)
	}
	c.waitNote(t, "notifications/progress")
}

func TestGoSDKAutoFallback(t *testing.T) {
	t.Parallel()
	srv, _ := newSDKServer()
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	reasons := make(chan string, 1)
	c := dial(t, mcphttp.Options{URL: ts.URL, AutoFallback: true, OnFallback: func(r string) { reasons <- r }})
	c.initialize(t)
	select {
	case r := <-reasons:
		if !strings.Contains(r, "400") || !strings.Contains(r, "legacy") {
			t.Errorf("fallback reason %q should name the status and the legacy transport", r)
		}
	default:
		t.Fatal("OnFallback was not called")
	}
	if got := c.stream.Transport(); got != mcphttp.TransportSSE {
		t.Fatalf("Transport() = %q after fallback", got)
	}
	if res, err := c.callTool(ctxT(t), "echo", map[string]any{"text": "fallback"}, nil); err != nil || res.text() != "fallback" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
}

func TestNoFallbackWithoutOption(t *testing.T) {
	t.Parallel()
	srv, _ := newSDKServer()
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	c := dial(t, mcphttp.Options{URL: ts.URL})
	_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcphttp.CodeTransportError || !strings.Contains(rpcErr.Message, "400") {
		t.Fatalf("initialize against an SSE-only server without fallback: %v, want a -32000 error naming 400", err)
	}
}
