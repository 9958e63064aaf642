package auth

import (
	"net/http"
	"slices"
	"testing"
)

func TestParseChallenge(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x", Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write", error="insufficient_scope", error_description="needs write"`)
	c := ParseChallenge(http.StatusForbidden, h)
	if !c.Bearer || c.ResourceMetadata != "https://mcp.example.com/.well-known/oauth-protected-resource" ||
		!slices.Equal(c.Scopes, []string{"files:read", "files:write"}) || c.Error != "insufficient_scope" || c.Description != "needs write" {
		t.Fatalf("challenge = %+v", c)
	}
	if !c.InsufficientScope() {
		t.Fatal("InsufficientScope() = false")
	}
	// A malformed header still means "log in"; the well-knowns do the rest.
	h = http.Header{"Www-Authenticate": {`Bearer resource_metadata="unterminated`}}
	if c := ParseChallenge(http.StatusUnauthorized, h); c.Status != 401 || c.ResourceMetadata != "" || c.InsufficientScope() {
		t.Fatalf("malformed: %+v", c)
	}
}

func TestResourceMetadataURLs(t *testing.T) {
	t.Parallel()
	su := mustURL(t, "https://h.example/public/mcp")
	got := resourceMetadataURLs(&Challenge{ResourceMetadata: "https://h.example/meta"}, su)
	want := []string{"https://h.example/meta", "https://h.example/.well-known/oauth-protected-resource/public/mcp", "https://h.example/.well-known/oauth-protected-resource"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := resourceMetadataURLs(nil, mustURL(t, "https://h.example/")); !slices.Equal(got, want[2:]) {
		t.Fatalf("root server: %q", got)
	}
}

func TestPathPrefix(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p, full string
		want    bool
	}{{"", "/mcp", true}, {"/mcp", "/mcp", true}, {"/mcp/", "/mcp", true}, {"/mc", "/mcp", false}, {"/a", "/a/b", true}, {"/b", "/a", false}} {
		if got := pathPrefix(tt.p, tt.full); got != tt.want {
			t.Errorf("pathPrefix(%q, %q) = %v", tt.p, tt.full, got)
		}
	}
}
