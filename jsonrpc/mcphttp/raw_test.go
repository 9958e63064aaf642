package mcphttp_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/jsonrpc/mcphttp"
)

func dialStream(t *testing.T, opts mcphttp.Options) *mcphttp.Stream {
	t.Helper()
	s, err := mcphttp.Dial(ctxT(t), opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rpcError(t *testing.T, a mcphttp.RawAnswer) (int64, string) {
	t.Helper()
	var r struct {
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(a.Response, &r) != nil || r.Error == nil {
		t.Fatalf("answer %+v carries no JSON-RPC error", a)
	}
	return r.Error.Code, r.Error.Message
}

// Raw exchanges with real 2026-07-28 servers (the TypeScript SDK v2's and
// the Go SDK's): the stream's request metadata headers go out, a header a
// probe sets replaces the stream's, and the answer is read whether it
// comes as JSON or as an event stream.
func TestSendRawToModernPeers(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]func(*testing.T) string{
		"ts-modern": func(t *testing.T) string { return jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra) },
		"gosdk":     func(t *testing.T) string { return jsonrpctest.GoSDKHTTP(t) },
	} {
		t.Run(name, func(t *testing.T) {
			s := dialStream(t, mcphttp.Options{URL: url(t), Modern: &mcphttp.ModernOptions{}})
			a, err := s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: discoverFrame("2026-07-28")})
			if err != nil || a.Status != http.StatusOK || !strings.Contains(string(a.Response), `"supportedVersions"`) {
				t.Fatalf("server/discover = %+v, %v; want 200 with a discovery result", a, err)
			}
			list := []byte(`{"jsonrpc":"2.0","id":"m","method":"tools/list","params":{"_meta":` + mustJSON(t, envelope(nil)) + `}}`)
			a, err = s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: list, Header: map[string]string{"Mcp-Method": "prompts/list"}})
			if err != nil {
				t.Fatal(err)
			}
			if code, _ := rpcError(t, a); code != -32020 || a.Status != http.StatusBadRequest {
				t.Errorf("mismatched Mcp-Method = HTTP %d, code %d; want 400 -32020", a.Status, code)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A raw exchange keeps the stream's redirect policy: a 307 to another
// origin is not followed, so the configured credential never reaches it.
func TestSendRawRefusesRedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	s := dialStream(t, mcphttp.Options{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "raw-redirect-secret"}, Modern: &mcphttp.ModernOptions{}})
	_, err := s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: discoverFrame("2026-07-28")})
	if !errors.Is(err, mcphttp.ErrRedirected) || !strings.Contains(err.Error(), strings.TrimPrefix(elsewhere.URL, "http://")) {
		t.Errorf("SendRaw = %v, want ErrRedirected naming the other origin", err)
	}
	if strings.Contains(err.Error(), "raw-redirect-secret") {
		t.Errorf("the error shows the header value: %v", err)
	}
	if n := other.Load(); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
}

// The answer is bounded by the stream's message size, read with its SSE
// parser (notifications before the response are skipped), and an error
// page is quoted without the configured values; the caller's Transport
// carries every raw exchange.
func TestSendRawAnswers(t *testing.T) {
	t.Parallel()
	var seenAuth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seenAuth.Store(r.Header.Get("X-Added-By-Transport"))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
				"data: {\"jsonrpc\":\"2.0\",\"id\":" + string(m.ID) + ",\"result\":{\"ok\":true}}\n\n"))
		case "big":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"x":"` + strings.Repeat("x", 4096) + `"}}`))
		default:
			http.Error(w, "no such thing, key=raw-answers-secret", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	s := dialStream(t, mcphttp.Options{URL: srv.URL, MaxMessageSize: 1024, Headers: map[string]string{"X-Api-Key": "raw-answers-secret"},
		Transport: addHeader{http.DefaultTransport}})
	frame := func(method string) []byte { return []byte(`{"jsonrpc":"2.0","id":7,"method":"` + method + `"}`) }

	a, err := s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: frame("sse")})
	if err != nil || string(a.Response) != `{"jsonrpc":"2.0","id":7,"result":{"ok":true}}` {
		t.Errorf("SSE answer = %+v, %v; want the response event", a, err)
	}
	if seenAuth.Load() != "yes" {
		t.Error("the raw exchange did not go through the caller's Transport")
	}
	if _, err := s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: frame("big")}); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Errorf("an answer over the limit = %v, want ErrMessageTooLarge", err)
	}
	a, err = s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: frame("other")})
	if err != nil || a.Status != http.StatusNotFound || a.Response != nil || !strings.Contains(a.Body, "no such thing") || strings.Contains(a.Body, "raw-answers-secret") {
		t.Errorf("error page = %+v, %v; want 404 quoted without the configured value", a, err)
	}
	if _, err := s.SendRaw(ctxT(t), mcphttp.RawRequest{Frame: []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)}); !errors.Is(err, mcphttp.ErrBadOptions) {
		t.Errorf("a notification sent raw = %v, want ErrBadOptions", err)
	}
}

// addHeader is a caller's Transport, standing in for MCP authorization.
type addHeader struct{ base http.RoundTripper }

func (a addHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Added-By-Transport", "yes")
	return a.base.RoundTrip(r)
}
