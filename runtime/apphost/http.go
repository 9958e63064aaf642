package apphost

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
)

// The host page and its script and style, embedded. The page is a
// template for the one value it carries (the key, on the first load).
//
//go:embed assets/page.html assets/host.js assets/host.css
var assets embed.FS

var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(assets, "assets/page.html"))
})

// maxBridgeBody bounds one message a page POSTs (a view's tools/call
// arguments, say).
const maxBridgeBody = 8 << 20

// keyHeader carries the page's key on its requests: a custom header, so a
// request from any other page is refused before it is read (a browser
// sends one cross-origin only after a preflight, which the host never
// answers).
const keyHeader = "X-Mcpdeck-Key"

// hostPagePolicy is the host page's own CSP: its script and style from
// the host, requests to the host, the view's iframe from the host.
const hostPagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *Host) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /static/host.js", h.static("assets/host.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /static/host.css", h.static("assets/host.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /app/{id}/{token}", h.servePage)
	mux.HandleFunc("GET /app/{id}/{$}", h.servePage)
	mux.HandleFunc("GET /app/{id}/view/{nonce}", h.serveView)
	mux.HandleFunc("POST /app/{id}/start", h.withKey(h.start))
	mux.HandleFunc("GET /app/{id}/events", h.withKey(h.events))
	mux.HandleFunc("POST /app/{id}/bridge", h.withKey(h.bridge))
	mux.HandleFunc("POST /app/{id}/link", h.withKey(h.link))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hostAllowed(r) {
			http.Error(w, "mcpdeck's app host answers on loopback only: use the address it printed", http.StatusMisdirectedRequest)
			return
		}
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

func (h *Host) static(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := assets.ReadFile(name)
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

// servePage serves the host page: with the one-time token, the first time
// (the page then holds the key); without one, the page of a tab that was
// opened before and reloads (its key is in that tab's sessionStorage).
func (h *Host) servePage(w http.ResponseWriter, r *http.Request) {
	a := h.lookup(r.PathValue("id"))
	if a == nil {
		pageError(w, http.StatusNotFound, "This app is not open in mcpdeck (it was closed, or mcpdeck stopped). Open it again from mcpdeck.")
		return
	}
	key := ""
	if token := r.PathValue("token"); token != "" {
		a.mu.Lock()
		if equal(token, a.token) {
			a.token, a.key = "", randomID(32)
			key = a.key
		}
		a.mu.Unlock()
		if key == "" {
			pageError(w, http.StatusForbidden, "This link was used already: each link opens its app once. Open the app again from mcpdeck (the a key in the result viewer, or mcpdeck app open) for a new link.")
			return
		}
	}
	w.Header().Set("Content-Security-Policy", hostPagePolicy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTemplate().Execute(w, map[string]string{"Key": key, "ID": a.id, "Title": a.tool.ServerTool + " · " + a.server})
}

func pageError(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}

// withKey serves a request of a page that holds the app's key.
func (h *Host) withKey(next func(http.ResponseWriter, *http.Request, *app)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a := h.lookup(r.PathValue("id"))
		if a == nil {
			http.Error(w, "no such app: it was closed, or mcpdeck stopped", http.StatusNotFound)
			return
		}
		a.mu.Lock()
		ok := equal(r.Header.Get(keyHeader), a.key)
		a.mu.Unlock()
		if !ok {
			http.Error(w, "this page has no key for the app: open the app again from mcpdeck for a new link", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Origin") != "" && r.Header.Get("Origin") != "http://"+r.Host {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		next(w, r, a)
	}
}

// startAnswer tells a page what to show: the view's single-use path, the
// iframe's permissions, and what the app is.
type startAnswer struct {
	View          string   `json:"view"`
	Allow         string   `json:"allow"`
	PrefersBorder bool     `json:"prefersBorder"`
	Server        string   `json:"server"`
	Tool          string   `json:"tool"`
	ResourceURI   string   `json:"resourceUri"`
	Policy        string   `json:"policy"`
	Permissions   []string `json:"permissions"`
}

// start begins a view: the page says what it knows of its browser and
// gets a fresh single-use path for the view's document. A reloaded page
// starts again; what was queued for the old view is dropped.
func (h *Host) start(w http.ResponseWriter, r *http.Request, a *app) {
	var pg pageInfo
	_ = json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&pg)
	nonce := randomID(24)
	a.mu.Lock()
	a.page = pg
	a.views[nonce] = true
	a.outbox, a.initialized = nil, false
	a.mu.Unlock()
	border := true
	if a.doc.UI.PrefersBorder != nil {
		border = *a.doc.UI.PrefersBorder
	}
	writeJSON(w, startAnswer{View: "/app/" + a.id + "/view/" + nonce, Allow: a.allow, PrefersBorder: border, Server: a.server,
		Tool: a.tool.ServerTool, ResourceURI: a.ui.ResourceURI, Policy: a.policy, Permissions: nonNil(a.doc.UI.Permissions)})
}

// serveView serves the app's HTML once per path, under its CSP.
func (h *Host) serveView(w http.ResponseWriter, r *http.Request) {
	a := h.lookup(r.PathValue("id"))
	if a == nil {
		http.NotFound(w, r)
		return
	}
	nonce := r.PathValue("nonce")
	a.mu.Lock()
	ok := a.views[nonce]
	delete(a.views, nonce)
	a.mu.Unlock()
	if !ok {
		pageError(w, http.StatusForbidden, "This view's address was used already.")
		return
	}
	w.Header().Set("Content-Security-Policy", a.policy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
	_, _ = w.Write(a.doc.HTML)
}

// events streams what the host has for the page, one JSON object a line:
// messages to relay to the view, and what the page should do. One stream
// per app: a newer one (a reloaded page) ends the older. When the host
// closes, the stream says so and ends.
func (h *Host) events(w http.ResponseWriter, r *http.Request, a *app) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	mine := make(chan struct{})
	a.mu.Lock()
	if a.stream != nil {
		close(a.stream)
	}
	a.stream = mine
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if a.stream == mine {
			a.stream = nil
		}
		a.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	h.notice(Notice{Kind: NoticePageOpened, App: a.id, Server: a.server, Tool: a.tool.ServerTool, Text: "the app's page is open"})
	for {
		a.mu.Lock()
		lines := a.outbox
		a.outbox = nil
		a.mu.Unlock()
		for _, l := range lines {
			if _, err := w.Write(append(l, '\n')); err != nil {
				return
			}
		}
		if len(lines) > 0 {
			fl.Flush()
		}
		select {
		case <-a.notify:
		case <-mine:
			return
		case <-r.Context().Done():
			return
		case <-h.closing:
			a.mu.Lock()
			lines := a.outbox // what the teardown left, then the last word
			a.outbox = nil
			a.mu.Unlock()
			for _, l := range lines {
				_, _ = w.Write(append(l, '\n'))
			}
			b, _ := json.Marshal(bridgeAnswer{Page: &pageAction{Closed: "mcpdeck stopped: this app is disconnected. Open it again from mcpdeck."}})
			_, _ = w.Write(append(b, '\n'))
			fl.Flush()
			return
		}
	}
}

// bridge takes one message the view posted and answers with what to
// relay back to it.
func (h *Host) bridge(w http.ResponseWriter, r *http.Request, a *app) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBridgeBody+1))
	if err != nil {
		http.Error(w, "reading the message: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxBridgeBody {
		http.Error(w, "message over 8 MiB refused", http.StatusRequestEntityTooLarge)
		return
	}
	writeJSON(w, a.fromView(r.Context(), bytes.TrimSpace(body)))
}

// link takes the operator's choice on a ui/open-link request.
func (h *Host) link(w http.ResponseWriter, r *http.Request, a *app) {
	var p struct {
		ID   json.RawMessage `json:"id"`
		Open bool            `json:"open"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&p); err != nil {
		http.Error(w, "reading the choice: "+err.Error(), http.StatusBadRequest)
		return
	}
	ans, err := a.answerLink(p.ID, p.Open)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	writeJSON(w, ans)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// discardLog keeps net/http's own complaints (a client gone mid-write)
// off the terminal, which a TUI may own.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// version is mcpdeck's for hostInfo.
func (h *Host) version() string {
	if v := strings.TrimSpace(h.opts.Version); v != "" {
		return v
	}
	return "dev"
}
