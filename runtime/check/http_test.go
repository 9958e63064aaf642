package check

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

// TestCheckOverHTTP runs every item against the official Go SDK's
// Streamable HTTP server on loopback: the reconnect step drops the
// connection and session, and a fresh session must list the same tools.
func TestCheckOverHTTP(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1"}, nil)
	type echoArgs struct {
		Text string `json:"text" jsonschema:"the text to echo"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text."}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	// The SDK's server does not cancel a handler whose session was dropped:
	// the sleep abandoned by the reconnect step would hold the test server
	// open for its whole duration.
	stop := make(chan struct{})
	type sleepArgs struct {
		Seconds float64 `json:"seconds" jsonschema:"how long to sleep"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps, slowly."}, func(ctx context.Context, _ *mcp.CallToolRequest, a sleepArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-stop:
			return nil, nil, context.Canceled
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(func() {
		close(stop)
		ts.Close()
		for ss := range s.Sessions() {
			ss.Close()
		}
	})

	srv := config.Server{Name: "remote", Transport: config.TransportHTTP, URL: ts.URL, Enabled: true,
		Headers:        map[string]string{"Authorization": "Bearer http-check-secret"},
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	rep := runCheck(t, srv, Options{CallTimeout: 2 * time.Second})
	// A true finding about the SDK's server: it answers an unknown method
	// with HTTP 400 and a text body, not a JSON-RPC -32601.
	if it, _ := rep.Item(IDActionableErrors); it.Status != Warn || !strings.Contains(it.Reason, "-32601") {
		t.Errorf("actionable-errors = %s (%s), want WARN naming -32601", it.Status, it.Reason)
	}
	if rep.Transport != string(config.TransportHTTP) {
		t.Errorf("transport %q", rep.Transport)
	}
	for _, it := range rep.Items {
		if it.Status == Fail {
			t.Errorf("%s failed over HTTP: %s", it.ID, it.Reason)
		}
	}
	// The SDK's server writes its handler's error even for a cancelled
	// request; whether it arrives before the exchange is cut is a race, so
	// cancellation may PASS or WARN here, never FAIL (checked above).
	for _, id := range []string{IDInitialize, IDToolsList, IDCall, IDInvalidInput, IDReconnect, IDShutdown,
		IDStableNames, IDResponseIDs, IDNoNotification} {
		if it, _ := rep.Item(id); it.Status != Pass {
			t.Errorf("%s = %s (%s), want PASS", id, it.Status, it.Reason)
		}
	}
}

// The authorization item reports what an OAuth-protected server asks for
// and checks its side: resource metadata named in the 401, an
// authorization server, a foreign token rejected.
func TestCheckReportsAuthorization(t *testing.T) {
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	srv := config.Server{Name: "protected", Transport: config.TransportHTTP, URL: rs.URL, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(auth.StorageEnv, "file")
	rep := runCheck(t, srv, Options{CallTimeout: 2 * time.Second, Auth: auth.NewManager(auth.Options{})})
	it, _ := rep.Item(IDAuthorization)
	if it.Status != Pass || !strings.Contains(it.Reason, "OAuth") || !strings.Contains(it.Reason, as.Issuer) {
		t.Errorf("authorization = %s (%s), want PASS naming OAuth and %s", it.Status, it.Reason, as.Issuer)
	}
	if init, _ := rep.Item(IDInitialize); init.Status != Fail || !strings.Contains(init.Reason, "mcpdeck auth login protected") {
		t.Errorf("initialize without a token = %s (%s), want FAIL saying it needs a login", init.Status, init.Reason)
	}
}

// protected puts a bearer check in front of a real modern MCP server (the
// Go SDK's, over HTTP): tokens of as, for this resource, are let through; a
// request without a token gets the 401 challenge naming the resource
// metadata, one with any other token the invalid status (401 as it should
// be; 200 lets it through). It records the Authorization header of every
// request.
type protected struct {
	url  string
	mu   sync.Mutex
	auth []string
}

func newProtected(t *testing.T, as *authtest.AuthServer, backend string, invalid int) *protected {
	t.Helper()
	rp, path := proxyTo(t, backend)
	p := &protected{}
	mux := http.NewServeMux()
	srv := startServer(t, mux)
	p.url = srv.URL + path
	mux.HandleFunc("GET /meta/prm.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": p.url, "authorization_servers": []string{as.Issuer}})
	})
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		p.mu.Lock()
		p.auth = append(p.auth, h)
		p.mu.Unlock()
		tok, _ := strings.CutPrefix(h, "Bearer ")
		status := http.StatusUnauthorized
		if tok != "" {
			status = invalid
		}
		if g, ok := as.Lookup(tok); (!ok || g.Resource != p.url) && status != http.StatusOK {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/meta/prm.json", error="invalid_token"`)
			}
			http.Error(w, http.StatusText(status), status)
			return
		}
		rp.ServeHTTP(w, r)
	})
	return p
}

// TestCheckProbesCarryTheToken: with a token (client credentials here),
// every request the check makes carries it, the modern items' probes
// included: they go through the session's authorizing transport. The
// exceptions: the very first request, sent before any token exists (its
// 401 is what makes the transport get one), and the authorization item's
// two probes, on purpose: one without a token, one with a token the
// server never issued.
func TestCheckProbesCarryTheToken(t *testing.T) {
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"svc": "svc-secret-0123456789"}})
	p := newProtected(t, as, jsonrpctest.GoSDKHTTP(t), http.StatusUnauthorized)
	srv := config.Server{Name: "protected", Transport: config.TransportHTTP, URL: p.url, Enabled: true,
		OAuth:          &config.OAuth{ClientID: "svc", ClientSecret: "svc-secret-0123456789", GrantType: config.GrantClientCredentials},
		StartupTimeout: 10 * time.Second}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(auth.StorageEnv, "file")
	rep := runCheck(t, srv, Options{CallTimeout: 2 * time.Second, Auth: auth.NewManager(auth.Options{})})
	if rep.Era != "modern" {
		t.Fatalf("era %q, want the modern items to run", rep.Era)
	}
	wantItems(t, rep, map[string]Status{IDInitialize: Pass, IDCall: Pass, IDDiscover: Pass, IDUnsupportedVersion: Pass,
		IDMissingMeta: Pass, IDHeaderMismatch: Pass, IDStateless: Pass, IDAuthorization: Pass})
	p.mu.Lock()
	defer p.mu.Unlock()
	var without, forged int
	for _, h := range p.auth {
		tok, _ := strings.CutPrefix(h, "Bearer ")
		switch _, ok := as.Lookup(tok); {
		case h == "":
			without++
		case !ok:
			forged++
		}
	}
	if without != 2 || forged != 1 || p.auth[0] != "" {
		t.Errorf("of %d requests, %d came without a token and %d with one the server never issued; want the first and the authorization item's two probes", len(p.auth), without, forged)
	}
}

// A token the server never issued must get 401, the answer that tells a
// client to refresh it or log in again: a 500 is "rejected wrongly", not
// "accepted"; a 403 says the token is good but not allowed; a 200 accepts
// it.
func TestAuthorizationJudgesTheAnswerToAForgedToken(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{})
	backend := jsonrpctest.GoSDKHTTP(t)
	for _, tc := range []struct {
		status int
		want   Status
		reason string
	}{
		{http.StatusUnauthorized, Pass, "a token it never issued is rejected (HTTP 401 Unauthorized)"},
		{http.StatusInternalServerError, Fail, "rejected a token it never issued wrongly, with HTTP 500 Internal Server Error: answer 401"},
		{http.StatusForbidden, Warn, "rejected a token it never issued, but with HTTP 403 Forbidden"},
		{http.StatusOK, Fail, "accepted a token it never issued (HTTP 200 OK)"},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			p := newProtected(t, as, backend, tc.status)
			c := &checker{ctx: context.Background(), srv: config.Server{Name: "p", Transport: config.TransportHTTP, URL: p.url}, opts: Options{}.withDefaults()}
			st, reason := c.authorization()
			if st != tc.want || !strings.Contains(reason, tc.reason) || (tc.status != http.StatusOK && strings.Contains(reason, "accepted")) {
				t.Errorf("authorization = %s %q, want %s saying %q", st, reason, tc.want, tc.reason)
			}
		})
	}
}

// A server that wants an API key (401 without a Bearer challenge) is not
// an OAuth server that got its challenge wrong: with the key configured the
// item says so; without it, it warns that nothing tells a client what to do.
func TestAuthorizationRecognisesStaticCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "static-key-0123" {
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer srv.Close()
	for headers, want := range map[string]Status{"X-Api-Key": Pass, "": Warn} {
		cfg := config.Server{Name: "k", Transport: config.TransportHTTP, URL: srv.URL}
		if headers != "" {
			cfg.Headers = map[string]string{headers: "static-key-0123"}
		}
		c := &checker{ctx: context.Background(), srv: cfg, opts: Options{}.withDefaults()}
		st, reason := c.authorization()
		if st != want || (want == Pass && !strings.Contains(reason, "static credentials: without the configured headers (X-Api-Key)")) ||
			(want == Warn && !strings.Contains(reason, "without a Bearer challenge")) || strings.Contains(reason, "static-key-0123") {
			t.Errorf("headers %q: authorization = %s %q, want %s", headers, st, reason, want)
		}
	}
}
