package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/mcphttp"
)

// TestEmptyBearerTokenScrubsNothing: a header "Authorization: Bearer "
// (what --header "Authorization: Bearer $TOKEN" becomes when TOKEN is
// empty) to a go-sdk server behind its bearer-token middleware: the 401's
// challenge is quoted as the server sent it. The word "Bearer" alone is
// not a credential; it used to become the redactor's pattern, and every
// message read "[redacted] resource_metadata=…". (TestUnauthorized keeps
// a real token out of the messages.)
func TestEmptyBearerTokenScrubsNothing(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return nil, auth.ErrInvalidToken
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: "http://" + ts.Listener.Addr().String() + "/.well-known/oauth-protected-resource",
	})(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	ts.Start()
	t.Cleanup(ts.Close)

	for _, tc := range []struct {
		name, value string
	}{
		{"empty token", "Bearer "},
		{"scheme alone", "Bearer"},
		{"real token", "Bearer tok-3c9a71e2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, mcphttp.Options{URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": tc.value}})
			_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{})
			if !errors.Is(err, mcphttp.ErrUnauthorized) {
				t.Fatalf("initialize = %v, want ErrUnauthorized", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "the server asks for: Bearer resource_metadata=") {
				t.Errorf("the error %q does not quote the server's challenge as it was sent", msg)
			}
		})
	}
}
