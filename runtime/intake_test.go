package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// everythingOf is every string a face can show of the server: the
// snapshot (era reason, instructions, stderr, errors) and every event.
func everythingOf(t *testing.T, c *Controller, events []Event) string {
	t.Helper()
	var b strings.Builder
	snap, err := json.Marshal(c.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	b.Write(snap)
	for _, e := range events {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n%T %s", e, data)
	}
	return b.String()
}

// A stdio server that reflects its configured env secret everywhere it
// writes (instructions, a tool result's text and structuredContent, an
// error, a log, stderr, a non-JSON line, and the server/discover error the
// era reason quotes) never gets it into the runtime's state: every byte
// from the server passes the scrubber on its way in.
func TestReflectedEnvSecretIsScrubbedAtIntake(t *testing.T) {
	t.Parallel()
	const secret = "tok-reflected-0123456789abcdef"
	srv := fakeServer("s", jsonrpctest.EchoSecret, jsonrpctest.WithSecret(secret))
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	ctx := ctxFor(t, 20*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "s", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Text; got != "hi (token ••••••)" || strings.Contains(string(res.StructuredContent), secret) {
		t.Errorf("the result carries the secret: %q %s", got, res.StructuredContent)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "s", Tool: "fail", Arguments: json.RawMessage(`{}`)}); err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("the error carries the secret: %v", err)
	}
	rec.waitAny(t, "the log", func(e Event) bool { l, ok := e.(LogMessage); return ok && strings.Contains(string(l.Data), "token") })
	rec.waitAny(t, "the stderr line", func(e Event) bool {
		l, ok := e.(StderrLine)
		return ok && strings.Contains(l.Line, "called with token")
	})
	v := serverOf(t, c, "s")
	if !strings.Contains(v.Instructions, "Use the token ••••••") || !strings.Contains(v.EraReason, "(token ••••••)") {
		t.Errorf("instructions %q, era reason %q: want the secret scrubbed in both", v.Instructions, v.EraReason)
	}
	all := everythingOf(t, c, append(rec.seen, drain(rec)...))
	if strings.Contains(all, secret) {
		i := strings.Index(all, secret)
		t.Fatalf("the secret reached the runtime's state:\n…%s…", all[max(0, i-300):min(len(all), i+100)])
	}
	if !strings.Contains(all, "starting with token ••••••") {
		t.Errorf("the non-JSON line is not in the events, scrubbed")
	}
}

// A remote server that reflects a token mcpdeck obtained at run time
// (registered with config.AddSecret, as the authorization manager does)
// in its answer to the era probe, its instructions and a tool result,
// never gets it into the runtime's state.
func TestReflectedRuntimeTokenIsScrubbedAtIntake(t *testing.T) {
	t.Parallel()
	const token = "at-runtime-token-9f8e7d6c5b4a3210"
	config.AddSecret(token)
	s := mcp.NewServer(&mcp.Implementation{Name: "reflector", Version: "1"}, &mcp.ServerOptions{Instructions: "Bearer " + token})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are " + token}}}, map[string]string{"token": token}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "server/discover" || r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"unknown method for token %s"}}`, token)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		for ss := range s.Sessions() {
			ss.Close()
		}
	})
	srv := config.Server{Name: "r", Transport: config.TransportHTTP, URL: ts.URL, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	res, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "r", Tool: "whoami", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Text; got != "you are ••••••" || strings.Contains(string(res.StructuredContent), token) {
		t.Errorf("the result carries the token: %q %s", got, res.StructuredContent)
	}
	v := serverOf(t, c, "r")
	if v.Instructions != "Bearer ••••••" || !strings.Contains(v.EraReason, "unknown method for token ••••••") {
		t.Errorf("instructions %q, era reason %q: want the token scrubbed in both", v.Instructions, v.EraReason)
	}
	if all := everythingOf(t, c, drain(rec)); strings.Contains(all, token) {
		t.Fatalf("the token reached the runtime's state")
	}
}
