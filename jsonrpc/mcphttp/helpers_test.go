package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/jsonrpc/mcphttp"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe() // the go-sdk peer runs as this binary, re-executed
	goleak.VerifyTestMain(m)
}

// waitLimit bounds every wait in these tests; nothing sleeps.
const waitLimit = 20 * time.Second

// client is a jsonrpc.Conn over an mcphttp.Stream, with its notifications
// collected on a channel.
type client struct {
	conn   *jsonrpc.Conn
	stream *mcphttp.Stream
	notes  chan jsonrpc.Notification
}

func dial(t testing.TB, opts mcphttp.Options) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s, err := mcphttp.Dial(ctx, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	c := &client{stream: s, notes: make(chan jsonrpc.Notification, 1024)}
	c.conn = jsonrpc.NewConn(s, jsonrpc.Options{OnNotification: func(n jsonrpc.Notification) {
		select {
		case c.notes <- n:
		default:
		}
	}})
	t.Cleanup(func() { c.conn.Close() })
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// initialize performs the MCP handshake and returns the result.
func (c *client) initialize(t testing.TB) json.RawMessage {
	t.Helper()
	res, err := c.conn.Call(ctxT(t), "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcphttp-test", "version": "0"},
	}, jsonrpc.WithoutCancelNotification())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.conn.Notify(ctxT(t), "notifications/initialized", nil); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	return res
}

type toolList struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (c *client) toolNames(t testing.TB) []string {
	t.Helper()
	raw, err := c.conn.Call(ctxT(t), "tools/list", map[string]any{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var l toolList
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range l.Tools {
		names = append(names, tl.Name)
	}
	return names
}

type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (c *client) callTool(ctx context.Context, name string, args any, meta map[string]any) (callResult, error) {
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	raw, err := c.conn.Call(ctx, "tools/call", params)
	if err != nil {
		return callResult{}, err
	}
	var r callResult
	err = json.Unmarshal(raw, &r)
	return r, err
}

func (r callResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// waitNote waits for a notification with the method.
func (c *client) waitNote(t testing.TB, method string) jsonrpc.Notification {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case n := <-c.notes:
			if n.Method == method {
				return n
			}
		case <-deadline:
			t.Fatalf("no %s notification within %s", method, waitLimit)
		}
	}
}

// seen is one HTTP request a recording handler saw.
type seen struct {
	Method, Path string
	Header       http.Header
}

// recorder wraps a handler and records the requests it serves.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []seen
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, seen{req.Method, req.URL.Path, req.Header.Clone()})
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

func (r *recorder) requests() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}
