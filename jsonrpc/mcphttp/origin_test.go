package mcphttp

import (
	"net/url"
	"testing"
)

// TestSameOrigin pins the one origin rule that the transport's redirect
// policy and the OAuth layer (token binding, token-endpoint redirects)
// share.
func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://h/mcp", "http://h:80/other", true},
		{"https://H.example/mcp", "https://h.example:443/", true},
		{"HTTP://h/", "http://h/", true},
		{"http://[::1]/mcp", "http://[::1]:80/x", true},
		{"http://h/", "https://h/", false},
		{"http://h/", "http://h:8080/", false},
		{"http://h/", "http://h2/", false},
		{"https://h:8443/", "https://h/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := SameOrigin(a, b); got != c.same {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
