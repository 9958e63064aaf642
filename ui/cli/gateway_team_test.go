package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mcpdeck/runtime/auth/authtest"
)

// startGatewayBin runs mcpdeck gateway --http on a free loopback port with
// h's configuration and returns it with its endpoint URL.
func startGatewayBin(t *testing.T, h *headless, args ...string) (*running, string) {
	t.Helper()
	r := h.start(t, append([]string{"gateway", "--http", "127.0.0.1:0"}, args...)...)
	const prefix = "mcpdeck gateway: serving MCP (Streamable HTTP) at "
	line := r.waitLine(t, true, "the gateway's URL", func(l string) bool { return strings.HasPrefix(l, prefix) })
	return r, strings.TrimPrefix(line, prefix)
}

// stopGateway ends a gateway with SIGTERM and checks it exits 0.
func stopGateway(t *testing.T, r *running) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("gateway exited %d after SIGTERM:\n%s", code, strings.Join(r.seenErr, "\n"))
	}
}

// writeGatewayConfig adds a gateway block to h's mcp.json.
func writeGatewayConfig(t *testing.T, h *headless, gw map[string]any) {
	t.Helper()
	data, err := os.ReadFile(h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["gateway"] = gw
	out, _ := json.MarshalIndent(doc, "", "  ")
	writeFile(t, h.cfg, out)
}

// TestGatewayOAuthLoginWithMcpdeck is the team gateway as a person meets
// it: the gateway is an OAuth protected resource of a JWT-issuing
// authorization server on loopback; mcpdeck's own client (call --login)
// meets its 401, discovers the authorization server from the gateway's
// resource metadata, registers, logs in through the browser, and calls a
// tool with the JWT; the per-client rules follow the person the token
// names (alice), whatever the client calls itself; the token is stored
// and reused; no token ever appears in any output.
func TestGatewayOAuthLoginWithMcpdeck(t *testing.T) {
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{JWT: true, DCR: true, Subject: "alice"})
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	writeGatewayConfig(t, h, map[string]any{
		"auth":    map[string]any{"issuer": as.Issuer},
		"clients": []any{map[string]any{"match": "alice", "tools": map[string]any{"deny": []string{"demo__fail"}}}},
	})
	auditFile := filepath.Join(t.TempDir(), "audit", "calls.jsonl")
	gw, url := startGatewayBin(t, h, "--audit", auditFile)
	gw.waitLine(t, true, "where clients log in", func(l string) bool {
		return strings.Contains(l, "clients log in at "+as.Issuer+" (OAuth; resource metadata at ") && strings.Contains(l, "/.well-known/oauth-protected-resource/mcp")
	})
	env, _ := authEnv(t)
	env = append(env, "HOME="+filepath.Join(t.TempDir(), "home"))

	r := runBin(t, "", env, "", "call", "--url", url, "demo__echo", `{"text":"hi"}`)
	if r.code != ExitConnection || !strings.Contains(r.stderr, "needs a login") {
		t.Fatalf("without a login: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", env, "", "call", "--login", "--url", url, "demo__echo", `{"text":"hi from alice"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "hi from alice") || !strings.Contains(r.stderr, as.Issuer+"/authorize?") {
		t.Fatalf("--login: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if as.Registrations() != 1 {
		t.Errorf("%d registrations, want 1", as.Registrations())
	}
	// The stored JWT is used again, and alice's rule applies to it: the
	// tool it denies is not offered to her.
	r2 := runBin(t, "", env, "", "tools", "--url", url)
	if r2.code != ExitOK || !strings.Contains(r2.stdout, "demo__echo") || strings.Contains(r2.stdout, "demo__fail") || strings.Contains(r2.stderr, "/authorize?") {
		t.Fatalf("alice's tools: exit %d\nstdout %s\nstderr %s", r2.code, r2.stdout, r2.stderr)
	}
	stopGateway(t, gw)
	// The audit log names alice, from her token, for the call she made.
	audit, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Client struct {
			Identity string `json:"identity"`
		} `json:"client"`
		Tool, Outcome, ArgumentsSHA256 string
	}
	lines := strings.Split(strings.TrimSpace(string(audit)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil || rec.Client.Identity != "alice" || rec.Tool != "demo__echo" ||
		rec.Outcome != "ok" || rec.ArgumentsSHA256 == "" || strings.Contains(string(audit), "hi from alice") {
		t.Errorf("audit log (%v):\n%s", err, audit)
	}
	assertNoTokens(t, as, r.stdout, r.stderr, r2.stdout, r2.stderr, strings.Join(gw.seenErr, "\n"), string(audit))
}

// TestGatewayLegacySSE: --legacy-sse serves old clients the HTTP+SSE
// transport next to Streamable HTTP, with the same token; mcpdeck's own
// client (--transport sse) calls a tool through it.
func TestGatewayLegacySSE(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	const token = "legacy-sse-token-0123456789"
	h.env = append(h.env, "MCPDECK_GATEWAY_TOKEN="+token)
	gw, url := startGatewayBin(t, h, "--legacy-sse")
	sse := strings.TrimSuffix(url, "/mcp") + "/sse"
	gw.waitLine(t, true, "the HTTP+SSE URL", func(l string) bool { return strings.Contains(l, "HTTP+SSE transport at "+sse) })
	r := runBin(t, "", nil, "", "call", "--url", sse, "--transport", "sse", "--header", "Authorization: Bearer "+token, "demo__echo", `{"text":"old but gold"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "old but gold") {
		t.Fatalf("call over HTTP+SSE: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", nil, "", "call", "--url", sse, "--transport", "sse", "demo__echo", `{"text":"x"}`)
	if r.code == ExitOK {
		t.Fatalf("without the token: exit 0\n%s", r.stdout)
	}
	stopGateway(t, gw)

	r = h.run(t, "", "gateway", "--legacy-sse")
	wantCode(t, r, ExitUsage)
}
