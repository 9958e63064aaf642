package cli

import (
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// TestAddRefusesAHeaderWithAnEmptyCredential: add reads --header as the
// ad-hoc targets do (one parser): "Authorization: Bearer " from an empty
// variable is refused, exit 2, and no file is written, instead of an
// entry that every later command warns about.
func TestAddRefusesAHeaderWithAnEmptyCredential(t *testing.T) {
	w := newConfigWorld(t)
	for _, h := range []string{"Authorization: Bearer ", "X-Api-Key:"} {
		code, _, stderr := w.run(t, "add", "remote", "--url", "http://127.0.0.1:9/mcp", "--header", h)
		if code != ExitUsage || !strings.Contains(stderr, "--header") || !strings.Contains(stderr, "an empty variable?") {
			t.Errorf("add --header %q: exit %d, stderr:\n%s", h, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.userDir, "mcp.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused add wrote the user's file (stat: %v)", err)
	}
	code, _, stderr := w.run(t, "add", "remote", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Api-Key: ${env:REMOTE_KEY}")
	if code != ExitOK {
		t.Errorf("add with a credential's placeholder: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestAdHocServerIsToldToUseHeader: an ad-hoc --url server that answers
// 401 and publishes no OAuth metadata wants a static credential; it has no
// mcp.json entry, so the advice is --header, not "headers" in its entry.
func TestAdHocServerIsToldToUseHeader(t *testing.T) {
	w := newConfigWorld(t) // in-process: no binary to build for it
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	code, _, stderr := w.run(t, "tools", "--url", ts.URL+"/mcp")
	if code != ExitConnection || !strings.Contains(stderr, "--header 'Authorization: Bearer …'") || strings.Contains(stderr, `"headers"`) {
		t.Errorf("exit %d; the advice for an ad-hoc server does not say --header:\n%s", code, stderr)
	}
}
