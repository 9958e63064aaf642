package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkTransport measures what the auth Transport adds to one request
// with a valid stored token: the token lookup and the request clone.
//
//	go test ./runtime/auth -run '^$' -bench Transport -benchmem
func BenchmarkTransport(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	run := func(b *testing.B, rt http.RoundTripper) {
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{}`))
			if rt == base {
				req.Header.Set("Authorization", "Bearer static")
			}
			resp, err := rt.RoundTrip(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("%v %v", resp, err)
			}
			resp.Body.Close()
		}
	}
	b.Run("static-header", func(b *testing.B) { run(b, base) })
	b.Run("auth-transport", func(b *testing.B) {
		store, err := OpenStore(StoreOptions{Kind: StorageFile, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		m := NewManager(Options{Store: store})
		tgt := Target{Name: "bench", URL: srv.URL + "/mcp"}
		_ = m.save(tgt, &tokenRecord{AccessToken: "tok", Expiry: time.Now().Add(time.Hour)})
		run(b, &Transport{Base: base, Manager: m, Target: tgt})
	})
}
