package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// redirector stands before a real MCP server: while on, it answers every
// request with a 307 to another origin, which serves the same server and
// records what reaches it.
type redirector struct {
	on    atomic.Bool
	url   string // the server as configured: the redirector's address
	other string // the other origin

	mu    sync.Mutex
	leaks []string // what reached the other origin: method and X-Api-Key
}

// proxyTo is a reverse proxy to backend (an MCP endpoint URL), and the
// endpoint's path.
func proxyTo(t *testing.T, backend string) (*httputil.ReverseProxy, string) {
	t.Helper()
	bu, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	return &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: bu.Scheme, Host: bu.Host}) },
		FlushInterval: -1,
		ErrorHandler:  func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) },
	}, bu.Path
}

// startServer serves h on loopback until t ends, one exchange per
// connection as in mcphttp's proxy tests: a reused connection into a
// ReverseProxy can have its next stream cut under load.
func startServer(t *testing.T, h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.Config.SetKeepAlivesEnabled(false)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newRedirector(t *testing.T, backend string) *redirector {
	t.Helper()
	rp, path := proxyTo(t, backend)
	r := &redirector{}
	other := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.leaks = append(r.leaks, req.Method+" "+req.URL.Path+" X-Api-Key="+req.Header.Get("X-Api-Key"))
		r.mu.Unlock()
		rp.ServeHTTP(w, req)
	}))
	front := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.on.Load() {
			http.Redirect(w, req, r.other+req.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		rp.ServeHTTP(w, req)
	}))
	r.url, r.other = front.URL+path, other.URL
	return r
}

func (r *redirector) reached() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.leaks...)
}

// TestCheckNeverFollowsARedirectToAnotherOrigin: a server that answers the
// check with a 307 to another port (another origin) never gets the
// configured X-Api-Key there, from any request the check makes: the
// session's, the modern items' probes, the authorization probes. The check
// reports the redirect instead. Redirecting from the first request covers
// the session's start; redirecting once the tools are listed covers every
// request after it, each modern item and authorization dialing afresh.
func TestCheckNeverFollowsARedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	backend := jsonrpctest.GoSDKHTTP(t)
	for _, from := range []string{"", IDToolsList} {
		name := "from the start"
		if from != "" {
			name = "after " + from
		}
		t.Run(name, func(t *testing.T) {
			r := newRedirector(t, backend)
			r.on.Store(from == "")
			srv := config.Server{Name: "redirecting", Transport: config.TransportHTTP, URL: r.url, Enabled: true,
				Headers: map[string]string{"X-Api-Key": "check-redirect-secret"}, StartupTimeout: 10 * time.Second}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep := Run(ctx, srv, Options{CallTimeout: 2 * time.Second, StopGrace: time.Second}, func(it Item) {
				if it.ID == from {
					r.on.Store(true)
				}
			})
			if testing.Verbose() {
				logReport(t, rep)
			}
			if leaks := r.reached(); len(leaks) > 0 {
				logReport(t, rep)
				t.Fatalf("the other origin received %d requests: %v", len(leaks), leaks)
			}
			other := strings.TrimPrefix(r.other, "http://")
			redirected := func(id string) {
				t.Helper()
				it, ok := rep.Item(id)
				if !ok || it.Status == Pass || !strings.Contains(it.Reason, "redirected (HTTP 307) to http://"+other) {
					t.Errorf("%s = %s %q, want it to report the redirect to %s", id, it.Status, it.Reason, other)
				}
			}
			if from == "" {
				redirected(IDInitialize)
				return
			}
			if rep.Era != "modern" {
				logReport(t, rep)
				t.Fatalf("era %q: the modern items did not run", rep.Era)
			}
			for _, id := range []string{IDCall, IDDiscover, IDUnsupportedVersion, IDMissingMeta, IDHeaderMismatch, IDStateless, IDAuthorization} {
				redirected(id)
			}
			if strings.Contains(reportText(rep), "check-redirect-secret") {
				t.Error("the report shows the header's value")
			}
		})
	}
}
