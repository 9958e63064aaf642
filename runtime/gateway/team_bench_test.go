package gateway

import (
	"context"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/auth/authtest"
)

// BenchmarkJWTVerify is the cost OAuth adds to every HTTP request once
// the keys are cached: with the token verified before (cached), and a
// token seen for the first time (parse, verify the ES256 signature, check
// the claims).
func BenchmarkJWTVerify(b *testing.B) {
	b.Run("cached", func(b *testing.B) { benchVerify(b, (*JWTAuth).Verify) })
	b.Run("first", func(b *testing.B) { benchVerify(b, (*JWTAuth).verify) })
}

func benchVerify(b *testing.B, verify func(*JWTAuth, context.Context, string) (*Identity, error)) {
	as := authtest.NewAuthServer(b, authtest.AuthServerOptions{JWT: true})
	const resource = "http://127.0.0.1:8765/mcp"
	a, err := NewJWTAuth(JWTOptions{Issuer: as.Issuer, Resource: resource})
	if err != nil {
		b.Fatal(err)
	}
	tok := as.IssueGrant(authtest.Grant{ClientID: "agent", Resource: resource, Expiry: time.Now().Add(time.Hour)})
	ctx := context.Background()
	if _, err := a.Verify(ctx, tok); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := verify(a, ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRateLimitTake is the cost of the rate limits on a tools/call:
// the client's bucket and one tool rule.
func BenchmarkRateLimitTake(b *testing.B) {
	g := &Gateway{}
	pol := &policy{rules: config.GatewayPolicy{
		RateLimit:      &config.GatewayRate{PerSecond: 1e9, Burst: 1e6, Field: "gateway.rateLimit"},
		ToolRateLimits: []config.GatewayToolRate{{Tools: "demo__*", GatewayRate: config.GatewayRate{PerSecond: 1e9, Burst: 1e6, Field: "gateway.toolRateLimits[0]"}}},
	}}
	cl := &client{g: g, name: "agent", remote: "127.0.0.1"}
	b.ReportAllocs()
	for b.Loop() {
		if l := g.take(cl, pol, "tools/call", "demo__echo", time.Now()); l != nil {
			b.Fatal(l)
		}
	}
}
