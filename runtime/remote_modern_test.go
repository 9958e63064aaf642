package runtime

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
)

// headerServer is a minimal 2026-07-28 Streamable HTTP server on loopback
// for what the real peers cannot be made to do: list a tool with an invalid
// x-mcp-header annotation, and change a tool's annotation between listings
// (so a call made with the old one is refused with -32020).
type headerServer struct {
	mu     sync.Mutex
	header string // the x-mcp-header name of region_echo's region, now
	lists  atomic.Int32
	calls  []string     // Mcp-Param-* headers of each tools/call, "Name=value"
	flaky  atomic.Int32 // calls of flaky: the first one's stream breaks
}

func (h *headerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || r.Header.Get("Mcp-Method") != req.Method {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Mcp-Method does not match the body"}}`, http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	fail := func(status, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": code, "message": msg}})
	}
	h.mu.Lock()
	header := h.header
	h.mu.Unlock()
	switch req.Method {
	case "server/discover":
		answer(map[string]any{"supportedVersions": []string{mcp.LatestModern}, "capabilities": map[string]any{"tools": map[string]any{}}, "resultType": "complete"})
	case "tools/list":
		h.lists.Add(1)
		answer(map[string]any{"resultType": "complete", "tools": []any{
			map[string]any{"name": "region_echo", "inputSchema": json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"` + header + `"}}}`)},
			map[string]any{"name": "bad_header", "inputSchema": json.RawMessage(`{"type":"object","properties":{"filter":{"type":"object","x-mcp-header":"Filter"}}}`)},
			map[string]any{"name": "flaky", "inputSchema": json.RawMessage(`{"type":"object"}`)},
		}})
	case "tools/call":
		if req.Params.Name == "flaky" {
			if h.flaky.Add(1) == 1 {
				// The response stream opens, then breaks before the response.
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				return
			}
			answer(map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "second time lucky"}}})
			return
		}
		got := r.Header.Get("Mcp-Param-" + header)
		h.mu.Lock()
		for k, v := range r.Header {
			if strings.HasPrefix(k, "Mcp-Param-") {
				h.calls = append(h.calls, k+"="+v[0])
			}
		}
		h.mu.Unlock()
		if got != req.Params.Arguments["region"] {
			fail(http.StatusBadRequest, mcp.CodeHeaderMismatch, "Mcp-Param-"+header+" does not match arguments.region")
			return
		}
		answer(map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "region=" + got}}})
	default:
		fail(http.StatusNotFound, -32601, "Method not found")
	}
}

func TestModernHTTPDropsToolsWithInvalidHeadersAndRelistsOnMismatch(t *testing.T) {
	t.Parallel()
	hs := &headerServer{header: "Region"}
	ts := httptest.NewServer(hs)
	t.Cleanup(ts.Close)
	srv := config.Server{Name: "h", Transport: config.TransportHTTP, URL: ts.URL, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	c := newController(t, srv)
	enable(t, c)
	v := serverOf(t, c, "h")
	if v.Era != EraModern || toolNames(v.Tools) != "h__flaky,h__region_echo" {
		t.Fatalf("era %s tools %s", v.Era, toolNames(v.Tools))
	}
	if len(v.DroppedTools) != 1 || v.DroppedTools[0].Name != "bad_header" || !strings.Contains(v.DroppedTools[0].Reason, "filter") {
		t.Fatalf("dropped %+v; want bad_header with the property and why", v.DroppedTools)
	}

	ctx := ctxFor(t, 10*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "h", Tool: "region_echo", Arguments: json.RawMessage(`{"region":"eu-west-1"}`)})
	if err != nil || text(t, res) != "region=eu-west-1" {
		t.Fatalf("region_echo: %+v, %v", res, err)
	}

	// The server renames the header: the call with the old one gets
	// -32020; the tools are listed again and the call retried once.
	hs.mu.Lock()
	hs.header = "Zone"
	hs.mu.Unlock()
	lists := hs.lists.Load()
	res, err = c.Call(ctx, CallRequest{Server: "h", Tool: "region_echo", Arguments: json.RawMessage(`{"region":"us-east-2"}`)})
	if err != nil || text(t, res) != "region=us-east-2" {
		t.Fatalf("region_echo after the annotation changed: %+v, %v", res, err)
	}
	if hs.lists.Load() != lists+1 || res.Rounds != 2 {
		t.Fatalf("tools listed %d more times, %d rounds; want a relist and one retry", hs.lists.Load()-lists, res.Rounds)
	}
	hs.mu.Lock()
	calls := strings.Join(hs.calls, " ")
	hs.mu.Unlock()
	if calls != "Mcp-Param-Region=eu-west-1 Mcp-Param-Region=us-east-2 Mcp-Param-Zone=us-east-2" {
		t.Fatalf("headers sent: %s", calls)
	}
}

// TestModernHTTPLostRequestIsSentAgain: a response stream that breaks
// before the response loses the request; it is sent again, once, with a
// new id.
func TestModernHTTPLostRequestIsSentAgain(t *testing.T) {
	t.Parallel()
	hs := &headerServer{header: "Region"}
	ts := httptest.NewServer(hs)
	t.Cleanup(ts.Close)
	c := newController(t, config.Server{Name: "h", Transport: config.TransportHTTP, URL: ts.URL, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second})
	enable(t, c)
	var ids []uint64
	res, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "h", Tool: "flaky", OnStarted: func(id uint64) { ids = append(ids, id) }})
	if err != nil || text(t, res) != "second time lucky" {
		t.Fatalf("flaky: %+v, %v", res, err)
	}
	if hs.flaky.Load() != 2 || len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("sent %d times with ids %v; want twice, with a new id", hs.flaky.Load(), ids)
	}
}
