package apphost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// brokenServer is the fake with app tools: chart (its resource has a
// malformed CSP origin), refresh (app-only), summary (model-only), show
// (a dangling resourceUri).
func brokenServer() config.Server {
	path, args, _ := jsonrpctest.Command(jsonrpctest.AppsBroken)
	return config.Server{Name: "fake", Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.AppsBroken), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
}

// page is a host page played by the test over real HTTP.
type page struct {
	t      *testing.T
	base   string // http://127.0.0.1:PORT/app/ID
	origin string
	key    string
	lines  chan map[string]json.RawMessage
}

// loadPage spends the app's link and returns the page's key.
func loadPage(t *testing.T, app *App) *page {
	t.Helper()
	resp, err := http.Get(app.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("loading the page: %s\n%s", resp.Status, body)
	}
	key := regexp.MustCompile(`name="mcpdeck-key" content="([^"]+)"`).FindSubmatch(body)
	if key == nil {
		t.Fatalf("the page carries no key:\n%s", body)
	}
	u, _ := url.Parse(app.URL)
	return &page{t: t, base: "http://" + u.Host + "/app/" + app.ID, origin: "http://" + u.Host, key: string(key[1])}
}

// post sends a request of the page and decodes its JSON answer.
func (p *page) post(path string, body any, headers ...string) (int, bridgeAnswer) {
	p.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(string(b)))
	req.Header.Set(keyHeader, p.key)
	req.Header.Set("Origin", p.origin)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var a bridgeAnswer
	_ = json.NewDecoder(resp.Body).Decode(&a)
	return resp.StatusCode, a
}

// listen opens the page's stream; its lines arrive on p.lines.
func (p *page) listen(ctx context.Context) {
	p.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/events", nil)
	req.Header.Set(keyHeader, p.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		p.t.Fatalf("opening the stream: %v %v", err, resp)
	}
	p.lines = make(chan map[string]json.RawMessage, 64)
	go func() {
		defer close(p.lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
	}()
}

// next is the next line of the stream.
func (p *page) next(what string) map[string]json.RawMessage {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("waiting for %s: the stream ended", what)
		}
		return m
	case <-time.After(20 * time.Second):
		p.t.Fatalf("waiting for %s: nothing came", what)
	}
	return nil
}

func methodOf(raw json.RawMessage) string {
	var m message
	_ = json.Unmarshal(raw, &m)
	return m.Method
}

// errMessage is the message of an error response.
func errMessage(m message) string {
	var e struct{ Message string }
	_ = json.Unmarshal(m.Error, &e)
	return e.Message
}

func replyOf(t *testing.T, a bridgeAnswer) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(a.Reply, &m); err != nil {
		t.Fatalf("no reply in %+v", a)
	}
	return m
}

// TestBridgeOverHTTP plays the page: the handshake, the tool's input and
// result after initialized, calls refused to tools an app may not call,
// a link asked about and declined, and the teardown on Close, which the
// view answers before the stream says mcpdeck stopped.
func TestBridgeOverHTTP(t *testing.T) {
	rt := newRuntime(t, brokenServer())
	ctx := ctxFor(t, 60*time.Second)
	res, err := rt.Call(ctx, runtime.CallRequest{Server: "fake", Tool: "chart"})
	if err != nil {
		t.Fatal(err)
	}
	var noticesMu sync.Mutex
	var logs []string
	h := New(rt, Options{Version: "test", TeardownWait: 10 * time.Second, OnNotice: func(n Notice) {
		if n.Kind == NoticeLog {
			noticesMu.Lock()
			logs = append(logs, n.Text)
			noticesMu.Unlock()
		}
	}})
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = h.Close(context.Background())
		}
	})
	app, err := h.Open(ctx, Request{Server: "fake", Tool: "chart", Arguments: json.RawMessage(`{"n":1}`), Result: res})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(app.Policy, "connect-src 'none'") || strings.Contains(app.Policy, "script-src *") || len(app.Problems) == 0 {
		t.Errorf("the malformed origin reached the policy, or was not named: %q %q", app.Policy, app.Problems)
	}
	p := loadPage(t, app)
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	p.listen(streamCtx)
	if code, _ := p.post("/start", map[string]any{"theme": "dark", "width": 640, "locale": "fr-FR"}); code != http.StatusOK {
		t.Fatalf("start: %d", code)
	}

	_, a := p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"appInfo":{"name":"chart","version":"1"},"appCapabilities":{},"protocolVersion":"2026-01-26"}}`))
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		HostInfo        struct{ Name string }
		HostContext     struct {
			Theme               string
			Locale              string
			ContainerDimensions struct{ MaxWidth float64 }
			ToolInfo            struct {
				ID   uint64
				Tool struct{ Name string }
			}
		}
	}
	if r := replyOf(t, a); json.Unmarshal(r.Result, &init) != nil || init.ProtocolVersion != mcp.AppsVersion || init.HostInfo.Name != "mcpdeck" ||
		init.HostContext.Theme != "dark" || init.HostContext.Locale != "fr-FR" || init.HostContext.ContainerDimensions.MaxWidth != 640 ||
		init.HostContext.ToolInfo.Tool.Name != "chart" || init.HostContext.ToolInfo.ID != res.RequestID {
		t.Errorf("ui/initialize answered %s", a.Reply)
	}
	p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`))
	if in := p.next("tool-input"); methodOf(in["reply"]) != "ui/notifications/tool-input" || !strings.Contains(string(in["reply"]), `{"n":1}`) {
		t.Errorf("first after initialized: %s", in["reply"])
	}
	if out := p.next("tool-result"); methodOf(out["reply"]) != "ui/notifications/tool-result" || !strings.Contains(string(out["reply"]), `"text":"ok"`) {
		t.Errorf("second after initialized: %s", out["reply"])
	}

	// An app's log message reaches the operator as its level and its text
	// (a string data unquoted).
	p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"chart","data":"low on data"}}`))
	noticesMu.Lock()
	if !slices.Equal(logs, []string{"[warning] low on data"}) {
		t.Errorf("the app's log message was noticed as %q", logs)
	}
	noticesMu.Unlock()

	for _, c := range []struct{ tool, says string }{
		{"summary", `may not be called by an app: its _meta.ui.visibility is ["model"]`},
		{"nope", `server "fake" lists no such tool`},
	} {
		_, a := p.post("/bridge", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": c.tool, "arguments": map[string]any{}}})
		if r := replyOf(t, a); !strings.Contains(errMessage(r), c.says) {
			t.Errorf("the app's call of %s answered %s", c.tool, a.Reply)
		}
	}
	_, a = p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"refresh","arguments":{}}}`))
	if r := replyOf(t, a); !strings.Contains(string(r.Result), `"text":"ok"`) {
		t.Errorf("the app's call of its app-only tool answered %s", a.Reply)
	}

	_, a = p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","id":"l1","method":"ui/open-link","params":{"url":"javascript:alert(1)"}}`))
	if r := replyOf(t, a); !strings.Contains(errMessage(r), "http and https links only") {
		t.Errorf("a javascript: link answered %s", a.Reply)
	}
	// A long refused URL is quoted cut to 200 bytes between characters,
	// never inside one (an é split in two quoted as \xc3).
	long := "javascript:" + strings.Repeat("é", 150)
	_, a = p.post("/bridge", map[string]any{"jsonrpc": "2.0", "id": "l3", "method": "ui/open-link", "params": map[string]any{"url": long}})
	if msg := errMessage(replyOf(t, a)); !strings.Contains(msg, "http and https links only") || strings.Contains(msg, `\x`) || !strings.Contains(msg, "é…") {
		t.Errorf("a long refused link answered %q", msg)
	}
	_, a = p.post("/bridge", json.RawMessage(`{"jsonrpc":"2.0","id":"l2","method":"ui/open-link","params":{"url":"https://example.com/docs"}}`))
	if a.Reply != nil || a.Page == nil || a.Page.Link == nil || a.Page.Link.URL != "https://example.com/docs" {
		t.Fatalf("a link was not asked about: %+v", a)
	}
	_, a = p.post("/link", map[string]any{"id": a.Page.Link.ID, "open": false})
	if r := replyOf(t, a); !strings.Contains(errMessage(r), "denied") || string(r.ID) != `"l2"` {
		t.Errorf("the declined link answered %s", a.Reply)
	}

	// Close: the view is torn down first, and answers; then the stream
	// says mcpdeck stopped and ends.
	done := make(chan error, 1)
	go func() { done <- h.Close(context.Background()) }()
	td := p.next("teardown")
	var req message
	_ = json.Unmarshal(td["reply"], &req)
	if req.Method != "ui/resource-teardown" {
		t.Fatalf("first on Close: %s", td["reply"])
	}
	start := time.Now()
	p.post("/bridge", map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
	if last := p.next("the closing word"); !strings.Contains(string(last["page"]), "mcpdeck stopped") {
		t.Errorf("last on Close: %s", last)
	}
	if err := <-done; err != nil {
		t.Errorf("close: %v", err)
	}
	closed = true
	if time.Since(start) > 5*time.Second {
		t.Errorf("Close waited %s after the view answered", time.Since(start))
	}
}

// TestHostRefusals: the link opens once; the page's requests need its key
// and its origin; a view's document is served once; a Host header that is
// not the loopback address the host listens on is refused; the host
// listens on loopback only; a tool without an app is refused.
func TestHostRefusals(t *testing.T) {
	if err := loopbackOnly("0.0.0.0:0"); err == nil {
		t.Error("0.0.0.0 accepted")
	}
	rt := newRuntime(t, brokenServer())
	ctx := ctxFor(t, 60*time.Second)
	h := newHost(t, rt, Options{})
	if _, err := h.Open(ctx, Request{Server: "fake", Tool: "echo"}); !errors.Is(err, ErrNoApp) {
		t.Errorf("echo opened: %v", err)
	}
	if _, err := h.Open(ctx, Request{Server: "fake", Tool: "show"}); err == nil || !strings.Contains(err.Error(), "resource not found") {
		t.Errorf("a dangling resourceUri opened: %v", err)
	}
	app, err := h.Open(ctx, Request{Server: "fake", Tool: "chart"})
	if err != nil {
		t.Fatal(err)
	}
	p := loadPage(t, app)
	if resp, err := http.Get(app.URL); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("the link opened twice: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}
	if code, _ := p.post("/start", struct{}{}, keyHeader, "wrong"); code != http.StatusForbidden {
		t.Errorf("a wrong key: %d", code)
	}
	if code, _ := p.post("/start", struct{}{}, "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("another origin: %d", code)
	}
	if code, _ := p.post("/start", struct{}{}, "Host", "evil.example"); code != http.StatusMisdirectedRequest {
		t.Errorf("another Host: %d", code)
	}
	// The view's document, fetched twice from the path a start gave.
	var s startAnswer
	req, _ := http.NewRequest(http.MethodPost, p.base+"/start", strings.NewReader("{}"))
	req.Header.Set(keyHeader, p.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	view := p.origin + s.View
	first, err := http.Get(view)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(first.Body)
	first.Body.Close()
	if first.StatusCode != http.StatusOK || !strings.Contains(string(html), "<p>chart</p>") ||
		!strings.Contains(first.Header.Get("Content-Security-Policy"), "sandbox allow-scripts") {
		t.Errorf("the view: %s %q\n%s", first.Status, first.Header.Get("Content-Security-Policy"), html)
	}
	if again, err := http.Get(view); err != nil || again.StatusCode != http.StatusForbidden {
		t.Errorf("the view's document was served twice: %v %v", again.Status, err)
	} else {
		again.Body.Close()
	}
}

// TestCloseWithAnIdleBrowserConnection: a browser opens connections it
// may never use (a preconnect sends no request). http.Server waits 5 s
// before it counts such a connection idle; Close closes it after its
// short grace instead, and that is a normal stop, not an error (CI saw
// "host close: context deadline exceeded" with Chromium's).
func TestCloseWithAnIdleBrowserConnection(t *testing.T) {
	rt := newRuntime(t, brokenServer())
	ctx := ctxFor(t, 60*time.Second)
	h := New(rt, Options{})
	app, err := h.Open(ctx, Request{Server: "fake", Tool: "chart"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(app.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close with a preconnected socket: %v", err)
	}
	// The host closed the connection: a read ends rather than blocks.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the idle connection was left open: %v", err)
	}
}
