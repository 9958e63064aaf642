package apphost

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// browser starts a headless Chromium for the test, stopped at cleanup.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := jsonrpctest.Chromium(t)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 800)}
	for _, f := range jsonrpctest.ChromiumFlags {
		opts = append(opts, chromedp.Flag(strings.TrimPrefix(f, "--"), true))
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // start it now: a failure is the browser's
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// recorder keeps the runtime's app messages and the host's notices.
type recorder struct {
	mu       sync.Mutex
	messages []runtime.AppMessage
	notices  []Notice
	changed  chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) notice(n Notice) {
	r.mu.Lock()
	r.notices = append(r.notices, n)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// follow records rt's AppMessages until the test ends.
func (r *recorder) follow(t *testing.T, rt *runtime.Controller) {
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Lossless: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			if m, ok := e.(runtime.AppMessage); ok {
				r.mu.Lock()
				r.messages = append(r.messages, m)
				r.mu.Unlock()
				r.poke()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// waitFor waits until cond holds of what was recorded.
func (r *recorder) waitFor(t *testing.T, what string, d time.Duration, cond func(msgs []runtime.AppMessage, notices []Notice) bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := cond(r.messages, r.notices)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline.C:
			r.mu.Lock()
			defer r.mu.Unlock()
			var seen []string
			for _, m := range r.messages {
				seen = append(seen, fmt.Sprintf("%s %s %s %s", m.Frame.Dir, m.Frame.Kind, m.Frame.Method, m.Frame.ID))
			}
			t.Fatalf("no %s within %s; bridge messages seen:\n%s", what, d, strings.Join(seen, "\n"))
		}
	}
}

// has reports whether a message of the bridge went dir with method.
func has(msgs []runtime.AppMessage, dir runtime.Direction, kind runtime.FrameKind, method string) bool {
	for _, m := range msgs {
		if m.Frame.Dir == dir && m.Frame.Kind == kind && m.Frame.Method == method {
			return true
		}
	}
	return false
}

// viewContext is a chromedp context on the app's iframe: Chromium runs a
// sandboxed iframe in a process of its own, a target to attach to.
func viewContext(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("listing the browser's targets: %v", err)
		}
		for _, ti := range targets {
			if ti.Type == "iframe" && strings.Contains(ti.URL, "/view/") {
				vctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(ti.TargetID))
				t.Cleanup(cancel)
				// Attach now, on vctx itself: chromedp ties a target to
				// the context of the first Run, and later runs use
				// contexts with deadlines.
				if err := chromedp.Do(vctx); err != nil {
					t.Fatalf("attaching to the app's iframe: %v", err)
				}
				return vctx
			}
		}
		time.Sleep(50 * time.Millisecond) // polling the browser's target list: it sends no event we subscribe to
	}
	t.Fatal("the app's iframe never became a target of its own")
	return nil
}

// TestAppInChromium opens the get-time app of the pinned MCP Apps example
// server in a real headless Chromium: the page loads, the view completes
// the bridge's handshake, shows the tool's result it was given, and its
// button calls the tool again through mcpdeck's live connection, the
// server's answer reaching the view. Every bridge message is an
// AppMessage of the runtime.
func TestAppInChromium(t *testing.T) {
	rt := newRuntime(t, appsServer(t))
	ctx := browser(t)
	rec := newRecorder()
	rec.follow(t, rt)
	callCtx := ctxFor(t, 60*time.Second)
	res, err := rt.Call(callCtx, runtime.CallRequest{Server: "basic", Tool: "get-time"})
	if err != nil {
		t.Fatalf("calling get-time: %v", err)
	}
	var first struct {
		Time string `json:"time"`
	}
	if err := json.Unmarshal(res.StructuredContent, &first); err != nil || first.Time == "" {
		t.Fatalf("get-time gave no time: %s (%v)", res.StructuredContent, err)
	}
	h := newHost(t, rt, Options{OnNotice: rec.notice, Version: "test"})
	app, err := h.Open(callCtx, Request{Server: "basic", Tool: "get-time", Result: res})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if !strings.HasPrefix(app.URL, "http://127.0.0.1:") || app.ResourceURI != "ui://get-time/mcp-app.html" {
		t.Fatalf("app %+v", app)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL), chromedp.WaitVisible(chromedp.CSS("#view"))); err != nil {
		t.Fatalf("loading the host page: %v", err)
	}
	rec.waitFor(t, "handshake", 30*time.Second, func(m []runtime.AppMessage, _ []Notice) bool {
		return has(m, runtime.In, runtime.FrameRequest, "ui/initialize") && has(m, runtime.Out, runtime.FrameResult, "ui/initialize") &&
			has(m, runtime.In, runtime.FrameNotification, "ui/notifications/initialized") &&
			has(m, runtime.Out, runtime.FrameNotification, "ui/notifications/tool-result")
	})

	view := viewContext(t, ctx)
	shown := func(want string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(view, 30*time.Second)
		defer cancel()
		got, err := chromedp.Run(wctx, chromedp.Poll[string](`(() => { const e = document.getElementById("server-time"); return e && e.textContent === `+quoteJS(want)+` ? e.textContent : null })()`))
		if err != nil {
			text, _ := chromedp.Run(view, chromedp.Text(chromedp.CSS("#server-time")))
			t.Fatalf("the view shows %q, not %q: %v", text, want, err)
		}
		_ = got
	}
	shown(first.Time) // the tool's result reached the view

	// The view's button calls get-time through the bridge; the answer
	// comes from the server (a later time) and reaches the view.
	cctx, cancel := context.WithTimeout(view, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(cctx, chromedp.Poll[bool](`(document.getElementById("get-time-btn").click(), true)`)); err != nil {
		t.Fatalf("clicking the view's button: %v", err)
	}
	var second string
	rec.waitFor(t, "tools/call from the view", 30*time.Second, func(m []runtime.AppMessage, _ []Notice) bool {
		for _, x := range m {
			if x.Frame.Dir == runtime.Out && x.Frame.Kind == runtime.FrameResult && x.Frame.Method == "tools/call" {
				var r struct {
					Result struct {
						StructuredContent struct {
							Time string `json:"time"`
						} `json:"structuredContent"`
					} `json:"result"`
				}
				_ = json.Unmarshal(x.Frame.Raw, &r)
				second = r.Result.StructuredContent.Time
				return second != ""
			}
		}
		return false
	})
	if second == first.Time {
		t.Errorf("the view's call answered the same time as the first call: %s", second)
	}
	shown(second)
	// The view is sandboxed in an origin of its own: the page is out of
	// its reach, and its CSP (none declared: the restrictive default)
	// refuses a connection.
	got, err := chromedp.Run(view, chromedp.Evaluate[string](`(() => { try { return parent.document.title } catch (e) { return "blocked: " + e.name } })()`))
	if err != nil || !strings.HasPrefix(got, "blocked") {
		t.Errorf("the view reached its parent's document: %q %v", got, err)
	}
	violated, err := chromedp.Run(view, chromedp.Evaluate[string](`new Promise(resolve => {
		document.addEventListener("securitypolicyviolation", e => resolve(e.effectiveDirective), {once: true});
		fetch("http://127.0.0.1:9/").catch(() => {});
	})`, chromedp.EvalAwaitPromise))
	if err != nil || violated != "connect-src" {
		t.Errorf("a fetch from the view was not refused by its CSP's connect-src: %q %v", violated, err)
	}

	// The view reported its size; the page sized the iframe to it.
	var reported float64
	rec.waitFor(t, "size-changed", 10*time.Second, func(m []runtime.AppMessage, _ []Notice) bool {
		for _, x := range m {
			if x.Frame.Method == "ui/notifications/size-changed" {
				var n struct {
					Params struct {
						Height float64 `json:"height"`
					} `json:"params"`
				}
				_ = json.Unmarshal(x.Frame.Raw, &n)
				reported = n.Params.Height
			}
		}
		return reported > 0
	})
	height, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("view").style.height`))
	if want := fmt.Sprintf("%dpx", int(reported)); err != nil || height != want {
		t.Errorf("iframe height %q, want %s (the view's last size-changed)", height, want)
	}
	// The size is the view's viewport, not the box around it: else the
	// view, which reports its viewport, shrinks by the border each round.
	inner, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById("view").clientHeight`))
	if err != nil || inner != reported {
		t.Errorf("the iframe's viewport is %v high, not the %v the view asked for", inner, reported)
	}
	// The view asks to open a link: the operator is told, the page asks,
	// and a dismissal reaches the view as an error. (Never Open: the
	// test machine has no network to send a browser to.)
	if _, err := chromedp.Run(view, chromedp.Evaluate[bool](`(document.getElementById("open-link-btn").click(), true)`)); err != nil {
		t.Fatalf("clicking the view's Open Link: %v", err)
	}
	rec.waitFor(t, "link notice", 10*time.Second, func(_ []runtime.AppMessage, n []Notice) bool {
		return slices.ContainsFunc(n, func(x Notice) bool { return x.Kind == NoticeLink && x.URL == "https://modelcontextprotocol.io/" })
	})
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	asked, err := chromedp.Run(wctx, chromedp.Poll[string](`(() => { const l = document.getElementById("link"); return l.hidden ? null : document.getElementById("link-url").textContent })()`))
	if err != nil || asked != "https://modelcontextprotocol.io/" {
		t.Fatalf("the page did not ask about the link: %q %v", asked, err)
	}
	if shot := os.Getenv("MCPDECK_APP_SCREENSHOT"); shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.WriteFile(strings.TrimSuffix(shot, ".png")+"-link.png", png, 0o644)
		}
	}
	if err := chromedp.Do(wctx, chromedp.Click(chromedp.CSS("#link-dismiss"))); err != nil {
		t.Fatalf("dismissing the link: %v", err)
	}
	rec.waitFor(t, "the link's refusal", 10*time.Second, func(m []runtime.AppMessage, n []Notice) bool {
		return has(m, runtime.Out, runtime.FrameError, "ui/open-link") && slices.ContainsFunc(n, func(x Notice) bool { return x.Kind == NoticeLinkRefused })
	})

	if shot := os.Getenv("MCPDECK_APP_SCREENSHOT"); shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.WriteFile(shot, png, 0o644)
		}
	}

	// The link was spent by the first load.
	resp, err := http.Get(app.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a second load of the one-time link answered %s", resp.Status)
	}

	hist, _ := rt.History()
	calls := 0
	for _, c := range hist {
		if c.Server == "basic" && c.Tool == "get-time" {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("the server saw %d calls of get-time, want 2 (ours and the view's)", calls)
	}
}

func quoteJS(s string) string { b, _ := json.Marshal(s); return string(b) }
