package mcphttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// fake is a hand-written Streamable HTTP server for the misbehaviour
// tests: it does the handshake correctly and hands tools/call and GET to
// per-test hooks, so each test adds exactly one defect.
type fake struct {
	*httptest.Server
	rec *recorder

	mu      sync.Mutex
	onCall  func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
	onGet   func(w http.ResponseWriter, r *http.Request)
	deletes int
}

const fakeSession = "session-1"

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.rec = &recorder{next: http.HandlerFunc(f.serve)}
	f.Server = httptest.NewServer(f.rec)
	t.Cleanup(f.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		f.mu.Lock()
		f.deletes++
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet:
		f.mu.Lock()
		h := f.onGet
		f.mu.Unlock()
		if h == nil {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		h(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	switch {
	case msg.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", fakeSession)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, msg.ID)
	case msg.ID == nil || msg.Method == "":
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "tools/call":
		f.mu.Lock()
		h := f.onCall
		f.mu.Unlock()
		h(w, r, msg.ID)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
	}
}

func (f *fake) setCall(h func(w http.ResponseWriter, r *http.Request, id json.RawMessage)) {
	f.mu.Lock()
	f.onCall = h
	f.mu.Unlock()
}

func (f *fake) setGet(h func(w http.ResponseWriter, r *http.Request)) {
	f.mu.Lock()
	f.onGet = h
	f.mu.Unlock()
}

func (f *fake) deleteCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.deletes
}

// sse writes SSE text and flushes it.
func sse(w http.ResponseWriter, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
	w.(http.Flusher).Flush()
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func result(id json.RawMessage, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

func echoCall(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, result(id, "ok"))
}
