package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestPermanentFailuresAreNotRetried: a failure that only a change of the
// configuration can cure is not retried by the automatic reconnect, which
// would fail the same way each time; a failure that may pass is. Each
// case is a real server: a go-sdk server whose URL redirects to another
// origin (the refusal said "put the final URL in mcp.json", and was
// retried), one behind go-sdk's bearer-token middleware that rejects the
// configured key, a command that does not exist, and for contrast a
// server process that exits.
func TestPermanentFailuresAreNotRetried(t *testing.T) {
	t.Parallel()
	sdk := mcp.NewServer(&mcp.Implementation{Name: "elsewhere", Version: "1"}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, nil)
	elsewhere := httptest.NewServer(handler)
	t.Cleanup(elsewhere.Close)
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(moved.Close)
	reject := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return nil, auth.ErrInvalidToken
	}
	keyed := httptest.NewServer(auth.RequireBearerToken(reject, nil)(handler))
	t.Cleanup(keyed.Close)

	retry := config.Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: time.Hour, MaxBackoff: time.Hour}
	remote := func(name, url string, headers map[string]string) config.Server {
		return config.Server{Name: name, Transport: config.TransportHTTP, URL: url, Headers: headers, Enabled: true,
			StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second, AutoReconnect: retry}
	}
	missing := fakeServer("missing", jsonrpctest.Normal)
	missing.Command = "/nonexistent/mcp-server"
	missing.AutoReconnect = retry
	exits := fakeServer("exits", jsonrpctest.ExitEarly)
	exits.AutoReconnect = retry

	c := newController(t,
		remote("moved", moved.URL+"/mcp", nil),
		remote("keyed", keyed.URL+"/mcp", map[string]string{"Authorization": "Bearer wrong-key-0a1b2c"}),
		missing, exits)
	_ = c.SetEnabled(ctxFor(t, 30*time.Second), true)
	for _, tc := range []struct {
		server    string
		permanent bool
	}{
		{"moved", true},
		{"keyed", true},
		{"missing", true},
		{"exits", false},
	} {
		v := serverOf(t, c, tc.server)
		if v.State != StateFailed || v.LastError == nil {
			t.Errorf("%s: state %s, last error %+v; want failed", tc.server, v.State, v.LastError)
			continue
		}
		if v.Reconnectable == tc.permanent {
			t.Errorf("%s failed with %q (kind %s): reconnectable = %v, want %v", tc.server, v.LastError.Message, v.LastError.Kind, v.Reconnectable, !tc.permanent)
		}
	}
}
