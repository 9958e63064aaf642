package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

// TestCheckOverHTTP runs every item against the official Go SDK's
// Streamable HTTP server on loopback: the reconnect step drops the
// connection and session, and a fresh session must list the same tools.
func TestCheckOverHTTP(t *testing.T) {
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
