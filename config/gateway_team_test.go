package config

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestGatewayTeamBlock(t *testing.T) {
	cfg, err := loadGateway(t, "gw.json", `{
  "gateway": {
    "auth": {"issuer": "https://auth.example.com", "resource": "https://mcp.example.com/mcp", "identityClaim": "email", "scopes": ["mcp"]},
    "rateLimit": {"rate": "10/s", "burst": 20},
    "toolRateLimits": [{"tools": "github__create_*", "rate": "6/m"}, {"tools": "*", "rate": 100}],
    "audit": {"file": "audit.jsonl", "arguments": "scrubbed", "maxSizeMB": 5, "maxFiles": 3},
    "clients": [{"match": "alice@example.com", "rateLimit": {"rate": "1000/h", "burst": 1}}]
  }
}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Gateway
	if a := g.Auth; a == nil || a.Issuer != "https://auth.example.com" || a.Resource != "https://mcp.example.com/mcp" || a.IdentityClaim != "email" || len(a.Scopes) != 1 {
		t.Errorf("auth %+v", g.Auth)
	}
	if a := g.Audit; a == nil || !filepath.IsAbs(a.File) || filepath.Base(a.File) != "audit.jsonl" || a.Arguments != AuditScrubbed || a.MaxSizeMB != 5 || a.MaxFiles != 3 {
		t.Errorf("audit %+v", g.Audit)
	}
	pol, _ := g.For("bob@example.com")
	if r := pol.RateLimit; r == nil || r.PerSecond != 10 || r.Burst != 20 || !strings.Contains(r.String(), "10/s, burst 20 (gateway.rateLimit at ") {
		t.Errorf("rate limit %+v (%v)", pol.RateLimit, pol.RateLimit)
	}
	if len(pol.ToolRateLimits) != 2 || pol.ToolRateLimits[0].Tools != "github__create_*" || pol.ToolRateLimits[0].PerSecond != 0.1 ||
		pol.ToolRateLimits[0].Burst != 1 || pol.ToolRateLimits[1].PerSecond != 100 || pol.ToolRateLimits[1].Burst != 100 {
		t.Errorf("tool limits %+v", pol.ToolRateLimits)
	}
	alice, field := g.For("alice@example.com")
	if field != "gateway.clients[0]" || alice.RateLimit == nil || math.Abs(alice.RateLimit.PerSecond-1000.0/3600) > 1e-9 || len(alice.ToolRateLimits) != 2 {
		t.Errorf("alice: %q %+v", field, alice)
	}
	if got := RateString(1000.0 / 3600); got != "1000/h" {
		t.Errorf("RateString = %q", got)
	}
	if got := RateString(0.1); got != "6/m" {
		t.Errorf("RateString = %q", got)
	}
}

// A project file cannot turn on auth or an audit file (it would choose
// who gets in and where mcpdeck writes); bad values are errors with the
// field named.
func TestGatewayTeamBlockErrors(t *testing.T) {
	cfg, err := loadGateway(t, ".mcp.json", `{"gateway": {"auth": {"issuer": "https://x.example"}, "audit": "/tmp/x"}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gateway.Auth != nil || cfg.Gateway.Audit != nil {
		t.Errorf("a project file set auth or audit: %+v", cfg.Gateway)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"auth": {}}`, `field "gateway.auth": has no "issuer"`},
		{`{"auth": {"issuer": "auth.example"}}`, `field "gateway.auth.issuer": "auth.example" is not an http(s) URL`},
		{`{"rateLimit": {"rate": "fast"}}`, `field "gateway.rateLimit.rate": "fast" is not a rate`},
		{`{"rateLimit": {"rate": "5/d"}}`, `the unit after / must be s, m or h`},
		{`{"rateLimit": {"burst": 3}}`, `field "gateway.rateLimit": has no "rate"`},
		{`{"toolRateLimits": [{"rate": "1/s"}]}`, `field "gateway.toolRateLimits[0]": has no "tools"`},
		{`{"toolRateLimits": {"x": 1}}`, `field "gateway.toolRateLimits": must be an array`},
		{`{"audit": {"file": "a", "arguments": "all"}}`, `field "gateway.audit.arguments": "all": must be "digest"`},
		{`{"audit": {"arguments": "none"}}`, `field "gateway.audit": has no "file"`},
		{`{"clients": [{"match": "a", "rateLimit": {"rate": "1/s", "burst": 0}}]}`, `field "gateway.clients[0].rateLimit.burst": must be a whole number`},
	} {
		_, err := loadGateway(t, "gw.json", `{"gateway": `+tc.body+`}`, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
}
