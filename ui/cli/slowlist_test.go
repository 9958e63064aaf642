package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSlowListingNamesTheSetting: a go-sdk server whose tools/list does
// not answer within the startup timeout fails with the timeout, and every
// command says which setting to raise: startupTimeout, which bounds the
// listing a server does before it is ready (callTimeout bounds its calls
// after). tools said nothing at all; call said "--timeout, or
// callTimeout/startupTimeout", neither of which it could tell apart.
func TestSlowListingNamesTheSetting(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow-lister", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				<-ctx.Done() // answers when the client gives up
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	h := newHeadless(t, map[string]map[string]any{
		"slow": {"url": ts.URL, "startupTimeout": "400ms", "callTimeout": "30s"},
	})
	for _, args := range [][]string{{"tools", "slow"}, {"servers", "slow"}, {"call", "slow", "t", "{}"}} {
		r := h.run(t, "", args...)
		if r.code != ExitTimeout || !strings.Contains(r.stderr, "startup timeout") || !strings.Contains(r.stderr, "raise startupTimeout") ||
			strings.Contains(r.stderr, "--timeout") {
			t.Errorf("%s: exit %d, want %d and stderr naming startupTimeout (not --timeout):\n%s", strings.Join(args, " "), r.code, ExitTimeout, r.stderr)
		}
	}
}
