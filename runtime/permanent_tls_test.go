package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestCertificateAndOversizeFailuresAreNotRetried: a server whose
// certificate mcpdeck does not trust, an https URL to a server that speaks
// plain HTTP, and a server whose listing is over the message size limit
// fail the same way every time: the automatic reconnect does not try them
// again (it did, three times each), while a server process that exits is
// still retried. Each is a real go-sdk server on loopback: one behind
// httptest's TLS with its own CA, one plain, one whose tool description
// is larger than the limit.
func TestCertificateAndOversizeFailuresAreNotRetried(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	sdk := mcp.NewServer(&mcp.Implementation{Name: "tls", Version: "1"}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, nil)
	untrusted := httptest.NewTLSServer(handler)
	t.Cleanup(untrusted.Close)
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	big := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	mcp.AddTool(big, &mcp.Tool{Name: "huge", Description: strings.Repeat("a very long description ", 2*limit/23)},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	oversized := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return big }, nil))
	t.Cleanup(oversized.Close)

	retry := config.Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: time.Hour, MaxBackoff: time.Hour}
	remote := func(name, url string) config.Server {
		return config.Server{Name: name, Transport: config.TransportHTTP, URL: url, Enabled: true,
			StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second, AutoReconnect: retry}
	}
	exits := fakeServer("exits", jsonrpctest.ExitEarly)
	exits.AutoReconnect = retry
	c := New(Options{Config: configOf(
		remote("untrusted", untrusted.URL+"/mcp"),
		remote("plaintls", strings.Replace(plain.URL, "http://", "https://", 1)+"/mcp"),
		remote("oversized", oversized.URL+"/mcp"),
		exits), MaxMessageSize: limit, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	_ = c.SetEnabled(ctxFor(t, 30*time.Second), true)
	for _, tc := range []struct {
		server    string
		kind      ErrorKind
		permanent bool
	}{
		{"untrusted", KindConfig, true},
		{"plaintls", KindConfig, true},
		{"oversized", KindTooLarge, true},
		{"exits", KindExited, false},
	} {
		v := serverOf(t, c, tc.server)
		if v.State != StateFailed || v.LastError == nil {
			t.Errorf("%s: state %s, last error %+v; want failed", tc.server, v.State, v.LastError)
			continue
		}
		if v.LastError.Kind != tc.kind {
			t.Errorf("%s failed with %q of kind %s, want %s", tc.server, v.LastError.Message, v.LastError.Kind, tc.kind)
		}
		if v.Reconnectable == tc.permanent || v.NextRetry.IsZero() == !tc.permanent {
			t.Errorf("%s failed with %q (kind %s): reconnectable = %v, next retry %v; want reconnectable %v", tc.server, v.LastError.Message, v.LastError.Kind, v.Reconnectable, v.NextRetry, !tc.permanent)
		}
	}
}
