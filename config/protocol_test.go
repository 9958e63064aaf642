package config

import (
	"strings"
	"testing"
	"time"
)

func TestProtocolAndDiscoverTimeout(t *testing.T) {
	t.Parallel()
	s := parseOne(t, `{"mcpServers": {"s": {"command": "x", "protocol": "Modern", "discoverTimeout": "5s"}}}`, nil)
	if s.Protocol != "modern" || s.DiscoverTimeout != 5*time.Second {
		t.Fatalf("protocol %q discoverTimeout %s; want modern and 5s", s.Protocol, s.DiscoverTimeout)
	}
	s = parseOne(t, `{"mcpServers": {"s": {"command": "x", "protocol": "2025-06-18", "discoverTimeout": 250}}}`, nil)
	if s.Protocol != "2025-06-18" || s.DiscoverTimeout != 250*time.Millisecond {
		t.Fatalf("protocol %q discoverTimeout %s; want the revision and 250ms", s.Protocol, s.DiscoverTimeout)
	}
	if s := parseOne(t, `{"mcpServers": {"s": {"command": "x"}}}`, nil); s.Protocol != "" || s.DiscoverTimeout != 0 {
		t.Fatalf("defaults: protocol %q discoverTimeout %s; want unset", s.Protocol, s.DiscoverTimeout)
	}

	_, _, err := Parse("p.json", []byte(`{"mcpServers": {"s": {"command": "x", "protocol": "newest"}}}`), ScopeExplicit, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `field "protocol": unknown protocol "newest"`) || !strings.Contains(err.Error(), `"modern"`) {
		t.Fatalf("a bad protocol: %v", err)
	}

	a := parseOne(t, `{"mcpServers": {"s": {"command": "x", "protocol": "legacy"}}}`, nil)
	b := parseOne(t, `{"mcpServers": {"s": {"command": "x", "protocol": "modern"}}}`, nil)
	if a.Equal(b) {
		t.Fatal("servers differing in protocol are Equal: a reload would keep the old era")
	}
}
