package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHeaderWithAnEmptyCredentialIsRefused: --header "Authorization:
// Bearer $TOKEN" with TOKEN empty reaches mcpdeck as "Bearer ": it is
// refused before anything is sent, saying which header and why, as
// mcp.json refuses an unset variable. It used to be sent, and the word
// "Bearer" became a secret that blanked every challenge in the output.
func TestHeaderWithAnEmptyCredentialIsRefused(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	for _, h := range []string{"Authorization: Bearer ", "Authorization: Bearer", "X-Api-Key: "} {
		r := runBin(t, "", nil, "", "tools", "--url", ts.URL+"/mcp", "--header", h)
		wantCode(t, r, ExitUsage)
		if !strings.Contains(r.stderr, "--header") || !strings.Contains(r.stderr, "an empty variable?") {
			t.Errorf("--header %q: stderr does not say what is wrong:\n%s", h, r.stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}
