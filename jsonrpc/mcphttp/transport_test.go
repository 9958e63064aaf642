package mcphttp_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"mcpdeck/jsonrpc/mcphttp"
)

// refusing is a caller's RoundTripper that will not send without a login.
type refusing struct{ calls int }

var errNoLogin = errors.New("no login")

func (r *refusing) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls++
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("%w: %w", errNoLogin, mcphttp.ErrUnauthorized)
}

// TestTransportErrorEndsStreamWithItsChain: an error from Options.Transport
// that wraps ErrUnauthorized reaches the caller whole, so the runtime can
// tell "needs login" from a network failure.
func TestTransportErrorEndsStreamWithItsChain(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the request reached the server")
	}))
	defer srv.Close()
	rt := &refusing{}
	c := dial(t, mcphttp.Options{URL: srv.URL, Transport: rt})
	_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "2025-11-25"})
	if !errors.Is(err, errNoLogin) || !errors.Is(err, mcphttp.ErrUnauthorized) {
		t.Fatalf("initialize error = %v, want the transport's error in the chain", err)
	}
	if rt.calls == 0 {
		t.Fatal("Options.Transport was not used")
	}
}
