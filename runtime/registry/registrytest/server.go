// Package registrytest serves real server.json samples (testdata/) over
// the MCP Registry's published read API, on loopback, for tests of the
// registry client, the command line and the TUI.
package registrytest

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

//go:embed testdata/*.json
var fixtures embed.FS

// entry is one fixture: the response as served, and what listing needs.
type entry struct {
	name, version, description string
	latest                     bool
	raw                        json.RawMessage
}

// Server is a registry on loopback.
type Server struct {
	*httptest.Server
	entries []entry
	mu      sync.Mutex
	// requests are the request URIs received, in order.
	requests []string
}

// New starts a registry serving the fixtures; it stops with the test.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{entries: load(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0.1/servers", s.list)
	mux.HandleFunc("GET /v0.1/servers/{name}/versions/{version}", s.get)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.RequestURI())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests are the request URIs received so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func load(t testing.TB) []entry {
	files, err := fixtures.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range files {
		raw, err := fixtures.ReadFile("testdata/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Server struct {
				Name, Version, Description string
			}
			Meta struct {
				Official struct {
					IsLatest bool `json:"isLatest"`
				} `json:"io.modelcontextprotocol.registry/official"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		out = append(out, entry{e.Server.Name, e.Server.Version, e.Server.Description, e.Meta.Official.IsLatest, raw})
	}
	// The registry lists by name, then version.
	slices.SortFunc(out, func(a, b entry) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.version, b.version)) })
	return out
}

// list is GET /v0.1/servers: search (in name and description, any case),
// version=latest, cursor ("name:version" of the last item seen) and limit
// (default 30, at most 100).
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 30
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			problem(w, http.StatusUnprocessableEntity, "limit must be between 1 and 100")
			return
		}
		limit = n
	}
	search := strings.ToLower(q.Get("search"))
	var page []json.RawMessage
	next := ""
	cursor := q.Get("cursor")
	for _, e := range s.entries {
		if cursor != "" && e.name+":"+e.version <= cursor {
			continue
		}
		if q.Get("version") == "latest" && !e.latest {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(e.name), search) && !strings.Contains(strings.ToLower(e.description), search) {
			continue
		}
		if len(page) == limit {
			next = s.lastKey(page)
			break
		}
		page = append(page, e.raw)
	}
	meta := map[string]any{"count": len(page)}
	if next != "" {
		meta["nextCursor"] = next
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"servers": page, "metadata": meta})
}

// lastKey is the cursor of the last entry of page.
func (s *Server) lastKey(page []json.RawMessage) string {
	var e struct {
		Server struct{ Name, Version string }
	}
	_ = json.Unmarshal(page[len(page)-1], &e)
	return e.Server.Name + ":" + e.Server.Version
}

// get is GET /v0.1/servers/{name}/versions/{version}, "latest" allowed.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	name, version := r.PathValue("name"), r.PathValue("version")
	for _, e := range s.entries {
		if e.name == name && (e.version == version || (version == "latest" && e.latest)) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(e.raw)
			return
		}
	}
	problem(w, http.StatusNotFound, "Server not found")
}

// problem answers as the registry does: RFC 9457 problem details.
func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"title":%q,"status":%d,"detail":%q}`, http.StatusText(status), status, detail)
}
