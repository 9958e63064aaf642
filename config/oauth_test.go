package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func parseOne(t *testing.T, src string, env map[string]string) Server {
	t.Helper()
	servers, _, err := Parse("f.json", []byte(src), ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(env)})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(servers) != 1 {
		t.Fatalf("got %d servers, want 1", len(servers))
	}
	return servers[0]
}

func TestParseOAuthShapes(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SECRET": "s3cr3t-value-123", "IDTOK": "eyJ-id-token-value", "HOME": "/home/u"}
	tests := []struct {
		name, src string
		want      OAuth
	}{
		{"claude code", `{"mcpServers": {"a": {"type": "http", "url": "https://h/mcp",
			"oauth": {"clientId": "cid", "callbackPort": 8123, "scopes": "read write", "authServerMetadataUrl": "https://as.example/.well-known/oauth-authorization-server"}}}}`,
			OAuth{ClientID: "cid", RedirectPort: 8123, Scopes: []string{"read", "write"}, GrantType: GrantAuthorizationCode,
				AuthServerMetadataURL: "https://as.example/.well-known/oauth-authorization-server"}},
		{"vs code", `{"servers": {"a": {"type": "http", "url": "https://h/mcp", "oauth": {"clientId": "guid-1"}}}}`,
			OAuth{ClientID: "guid-1", GrantType: GrantAuthorizationCode}},
		{"cursor", `{"mcpServers": {"a": {"url": "https://h/mcp", "auth": {"CLIENT_ID": "cid", "CLIENT_SECRET": "${env:SECRET}", "scopes": ["openid", "kb:read"]}}}}`,
			OAuth{ClientID: "cid", ClientSecret: "s3cr3t-value-123", Scopes: []string{"openid", "kb:read"}, GrantType: GrantAuthorizationCode}},
		{"mcpdeck", `{"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientId": "cid", "clientSecret": "${SECRET}",
			"grantType": "client_credentials", "redirectPort": 9000, "clientMetadataUrl": "https://me.example/mcpdeck.json"}}}}`,
			OAuth{ClientID: "cid", ClientSecret: "s3cr3t-value-123", GrantType: GrantClientCredentials, RedirectPort: 9000,
				ClientMetadataURL: "https://me.example/mcpdeck.json"}},
		{"private key jwt", `{"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientId": "svc", "privateKeyFile": "~/keys/svc.pem",
			"signingAlgorithm": "ES256", "grantType": "client_credentials"}}}}`,
			OAuth{ClientID: "svc", PrivateKeyFile: "/home/u/keys/svc.pem", SigningAlgorithm: "ES256", GrantType: GrantClientCredentials}},
		{"enterprise", `{"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientId": "cid", "clientSecret": "${SECRET}",
			"idp": {"issuer": "https://idp.example", "clientId": "mcpdeck", "idToken": "${env:IDTOK}"}}}}}`,
			OAuth{ClientID: "cid", ClientSecret: "s3cr3t-value-123", GrantType: GrantAuthorizationCode,
				IdP: &OAuthIdP{Issuer: "https://idp.example", ClientID: "mcpdeck", IDToken: "eyJ-id-token-value"}}},
		{"workload identity", `{"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientId": "wl", "assertionFile": "~/run/token.jwt"}}}}`,
			OAuth{ClientID: "wl", AssertionFile: "/home/u/run/token.jwt", GrantType: GrantAuthorizationCode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parseOne(t, tt.src, env)
			if s.OAuth == nil {
				t.Fatal("OAuth is nil")
			}
			if !equalOAuth(s.OAuth, &tt.want) {
				t.Fatalf("OAuth = %+v\nwant    %+v", *s.OAuth, tt.want)
			}
		})
	}
}

func TestOAuthClientSecretIsASecret(t *testing.T) {
	t.Parallel()
	s := parseOne(t, `{"mcpServers": {"a": {"url": "https://h/mcp?k=s3cr3t-value-123", "oauth": {"clientId": "cid", "clientSecret": "${env:SECRET}"}}}}`,
		map[string]string{"SECRET": "s3cr3t-value-123"})
	idp := parseOne(t, `{"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientId": "cid",
		"idp": {"issuer": "https://idp.example", "clientId": "i", "clientSecret": "${env:IDPSEC}", "idToken": "${env:IDTOK}"}}}}}`,
		map[string]string{"IDPSEC": "idp-secret-98765", "IDTOK": "eyJ-id-token-value"})
	if sec := idp.Secrets(); !slices.Contains(sec, "idp-secret-98765") || !slices.Contains(sec, "eyJ-id-token-value") {
		t.Fatalf("Secrets() = %q, want the identity provider's secret and ID token", sec)
	}
	if r := idp.Redacted(); r.OAuth.IdP.IDToken != RedactedValue || r.OAuth.IdP.ClientSecret != RedactedValue || idp.OAuth.IdP.IDToken != "eyJ-id-token-value" {
		t.Fatalf("Redacted idp = %+v (original %+v)", r.OAuth.IdP, idp.OAuth.IdP)
	}
	if !slices.Contains(s.Secrets(), "s3cr3t-value-123") {
		t.Fatalf("Secrets() = %q, want the client secret", s.Secrets())
	}
	r := s.Redacted()
	if r.OAuth.ClientSecret != RedactedValue || strings.Contains(r.URL, "s3cr3t") {
		t.Fatalf("Redacted: secret %q url %q", r.OAuth.ClientSecret, r.URL)
	}
	if s.OAuth.ClientSecret != "s3cr3t-value-123" {
		t.Fatal("Redacted changed the original")
	}
	o := s
	o.OAuth = &OAuth{ClientID: "cid", ClientSecret: "other", GrantType: GrantAuthorizationCode}
	if s.Equal(o) {
		t.Fatal("servers with different client secrets are Equal")
	}
	if !s.Equal(s) {
		t.Fatal("a server is not Equal to itself")
	}
}

func TestParseOAuthDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
		warning         bool
	}{
		{"bad port", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"redirectPort": 70000}}}}`, `field "oauth.redirectPort": must be a port number`, false},
		{"bad grant", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"grantType": "password"}}}}`, `unknown grant type "password"`, false},
		{"client credentials without secret", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "grantType": "client_credentials"}}}}`, `needs a pre-registered clientId with a clientSecret or a privateKeyFile`, false},
		{"secret without id", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientSecret": "xxxxxx"}}}}`, `a client secret or private key without clientId`, false},
		{"key without id", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"privateKeyFile": "/k.pem"}}}}`, `a client secret or private key without clientId`, false},
		{"secret and key", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "clientSecret": "xxxxxx", "privateKeyFile": "/k.pem"}}}}`, `sets both clientSecret and privateKeyFile`, false},
		{"bad algorithm", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "privateKeyFile": "/k.pem", "signingAlgorithm": "HS256"}}}}`, `field "oauth.signingAlgorithm": unknown signing algorithm "HS256"`, false},
		{"algorithm without key", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "signingAlgorithm": "ES256"}}}}`, `signingAlgorithm without privateKeyFile`, false},
		{"idp not an object", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "idp": []}}}}`, `field "oauth.idp": must be an object`, false},
		{"idp without token", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "idp": {"issuer": "https://idp", "clientId": "i"}}}}}`, `needs "idToken"`, false},
		{"idp without issuer", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "idp": {"clientId": "i", "idToken": "t"}}}}}`, `needs "issuer"`, false},
		{"idp over http", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "idp": {"issuer": "http://idp.example", "clientId": "i", "idToken": "t"}}}}}`, `field "oauth.idp.issuer": "http://idp.example" must be an https:// URL`, false},
		{"idp without client", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"idp": {"issuer": "https://idp", "clientId": "i", "idToken": "t"}}}}}`, `"idp" needs clientId`, false},
		{"idp and client credentials", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "clientSecret": "xxxxxx", "grantType": "client_credentials", "idp": {"issuer": "https://idp", "clientId": "i", "idToken": "t"}}}}}`, `sets both "idp"`, false},
		{"assertion and idp", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "assertionFile": "/t.jwt", "idp": {"issuer": "https://idp", "clientId": "i", "idToken": "t"}}}}}`, `sets "assertionFile" (workload identity) with another grant`, false},
		{"unknown idp field", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "c", "idp": {"issuer": "https://idp", "clientId": "i", "idToken": "t", "audience": "x"}}}}}`, `field "oauth.idp.audience": unknown field is ignored`, true},
		{"cimd over http", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientMetadataUrl": "http://me.example/c.json"}}}}`, `must be an https:// URL`, false},
		{"cimd at root", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientMetadataUrl": "https://me.example/"}}}}`, `needs a path`, false},
		{"both spellings", `{"mcpServers": {"a": {"url": "https://h", "oauth": {}, "auth": {}}}}`, `is Cursor's spelling of "oauth"`, false},
		{"alias twice", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"clientId": "a", "CLIENT_ID": "b"}}}}`, `sets "clientId" a second time`, false},
		{"not an object", `{"mcpServers": {"a": {"url": "https://h", "oauth": "x"}}}`, `must be an object`, false},
		{"unknown oauth field", `{"mcpServers": {"a": {"url": "https://h", "oauth": {"audience": "x"}}}}`, `field "oauth.audience": unknown field is ignored`, true},
		{"oauth on stdio", `{"mcpServers": {"a": {"command": "x", "oauth": {}}}}`, `field "oauth": is ignored for stdio servers`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := Parse("f.json", []byte(tt.src), ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
			var got []Diagnostic
			if tt.warning {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				got = warns
			} else {
				var errs Errors
				if !errors.As(err, &errs) {
					t.Fatalf("error = %v, want Errors", err)
				}
				got = errs
			}
			if len(got) != 1 || !strings.Contains(got[0].String(), tt.want) {
				t.Fatalf("got %q, want one containing %q", got, tt.want)
			}
		})
	}
}
