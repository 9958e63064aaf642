package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadGateway writes data as the file at rel under a fresh project
// directory and loads it (project scope for ".mcp.json", explicit scope
// otherwise).
func loadGateway(t *testing.T, rel, data string, env map[string]string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, rel)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{ProjectDir: dir, UserConfigDir: filepath.Join(dir, "user"), LookupEnv: fakeEnv(env)}
	if rel != ".mcp.json" {
		opts.Files = []string{path}
	}
	return Load(opts)
}

func TestGatewayBlock(t *testing.T) {
	t.Parallel()
	cfg, err := loadGateway(t, "gw.json", `{
  "mcpServers": {"a": {"command": "x"}},
  "gateway": {
    "token": "${env:GW_TOKEN}",
    "allowedOrigins": ["https://app.example"],
    "callTimeout": "30s",
    "maxConcurrent": 4,
    "servers": {"deny": ["secret*"]},
    "tools": {"allow": ["a__*", "b__read"], "deny": ["*__delete*"]},
    "prompts": {"allow": []},
    "clients": [
      {"match": "claude-code*", "tools": {"deny": ["*"]}, "maxConcurrent": 1},
      {"match": "*", "callTimeout": 5000}
    ]
  }
}`, map[string]string{"GW_TOKEN": "tok-123456"})
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Gateway
	if g == nil {
		t.Fatal("no gateway block")
	}
	if g.Token != "tok-123456" || len(g.AllowedOrigins) != 1 {
		t.Errorf("token %q origins %v", g.Token, g.AllowedOrigins)
	}
	pol, field := g.For("cursor")
	if field != "gateway.clients[1]" || pol.CallTimeout != 5*time.Second || pol.MaxConcurrent != 4 {
		t.Errorf("cursor: field %q timeout %s max %d", field, pol.CallTimeout, pol.MaxConcurrent)
	}
	if ok, rule := pol.Tools.Decide("a__delete_all"); ok || !strings.Contains(rule, `gateway.tools.deny[0] "*__delete*" at `) || !strings.Contains(rule, "gw.json:9:54") {
		t.Errorf("deny rule: ok=%v rule %q", ok, rule)
	}
	if ok, rule := pol.Tools.Decide("c__x"); ok || rule != "gateway.tools.allow (matches none of its 2 patterns)" {
		t.Errorf("allow list: ok=%v rule %q", ok, rule)
	}
	if ok, _ := pol.Tools.Decide("b__read"); !ok {
		t.Error("b__read should be allowed")
	}
	if ok, _ := pol.Prompts.Decide("anything"); !ok {
		t.Error("an empty allow list allows everything")
	}
	if ok, rule := pol.Servers.Decide("secret-store"); ok || !strings.Contains(rule, "gateway.servers.deny[0]") {
		t.Errorf("servers: ok=%v rule %q", ok, rule)
	}
	cc, field := g.For("claude-code-2.1")
	if field != "gateway.clients[0]" || cc.MaxConcurrent != 1 || cc.CallTimeout != 30*time.Second {
		t.Errorf("claude-code: field %q %+v", field, cc)
	}
	if ok, rule := cc.Tools.Decide("a__read"); ok || !strings.Contains(rule, "gateway.clients[0].tools.deny[0]") {
		t.Errorf("client rule: ok=%v rule %q", ok, rule)
	}
	if ok, _ := cc.Servers.Decide("secret-store"); ok {
		t.Error("a client entry without servers keeps the top-level servers rules")
	}
}

func TestGatewayDefaults(t *testing.T) {
	t.Parallel()
	var g *Gateway
	pol, field := g.For("anyone")
	if field != "" || pol.CallTimeout != DefaultGatewayCallTimeout || pol.MaxConcurrent != DefaultGatewayMaxConcurrent {
		t.Errorf("defaults: %q %+v", field, pol)
	}
	if ok, _ := pol.Tools.Decide("x__y"); !ok {
		t.Error("no rules allow everything")
	}
}

func TestGatewayErrors(t *testing.T) {
	t.Parallel()
	_, err := loadGateway(t, "gw.json", `{"mcpServers": {}, "gateway": {
  "maxConcurrent": 0,
  "tools": {"deny": ["[a-"]},
  "clients": [{"tools": {}}],
  "callTimeout": "soon"
}}`, nil)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
	for _, want := range []string{
		`gw.json:2:20: field "gateway.maxConcurrent": must be a whole number`,
		`gw.json:3:22: field "gateway.tools.deny[0]": "[a-" is not a valid glob`,
		`gw.json:4:15: field "gateway.clients[0]": has no "match"`,
		`gw.json:5:18: field "gateway.callTimeout": "soon" is not a duration`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// A project's file may narrow what clients reach, but it must not set the
// token or open the endpoint to web pages: anyone can commit a .mcp.json.
func TestGatewayProjectFileCannotSetSecurity(t *testing.T) {
	t.Parallel()
	cfg, err := loadGateway(t, ".mcp.json", `{"mcpServers": {}, "gateway": {"token": "known", "allowedOrigins": ["*"], "tools": {"deny": ["x*"]}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Gateway
	if g.Token != "" || len(g.AllowedOrigins) != 0 || g.Policy.Tools == nil {
		t.Errorf("project gateway block: %+v", g)
	}
	var warned int
	for _, w := range cfg.Warnings {
		if strings.Contains(w.Field, "gateway.token") || strings.Contains(w.Field, "gateway.allowedOrigins") {
			warned++
		}
	}
	if warned != 2 {
		t.Errorf("want 2 warnings, got %v", cfg.Warnings)
	}
}

func TestGatewayNearestFileWins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte(`{"mcpServers": {}, "gateway": {"maxConcurrent": 2}}`), 0o600)
	os.WriteFile(b, []byte(`{"mcpServers": {}, "gateway": {"maxConcurrent": 3}}`), 0o600)
	cfg, err := Load(LoadOptions{Files: []string{a, b}, ProjectDir: dir, LookupEnv: fakeEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gateway.Policy.MaxConcurrent != 2 || len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].String(), "a.json defines the gateway block in effect") {
		t.Errorf("gateway %+v warnings %v", cfg.Gateway.Policy, cfg.Warnings)
	}
}

func TestGatewayApprovals(t *testing.T) {
	cfg, err := loadGateway(t, "gw.json", `{
  "mcpServers": {},
  "gateway": {
    "servers": {"approve": ["prod-*"]},
    "tools": {"deny": ["*__drop"], "approve": ["*__write*"]},
    "approveDestructive": true,
    "approvalTimeout": "30s",
    "clients": [
      {"match": "ci-bot", "tools": {"approve": ["*__send"]}, "approvalTimeout": "5s"},
      {"match": "relaxed", "approveDestructive": false, "tools": {"allow": ["*"]}}
    ]
  }
}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Gateway
	pol, _ := g.For("anyone")
	if pol.ApprovalTimeout != 30*time.Second {
		t.Errorf("approvalTimeout %s", pol.ApprovalTimeout)
	}
	for _, tc := range []struct {
		server, tool string
		destructive  bool
		want         bool
		rule         string
	}{
		{"prod-db", "prod-db__read", false, true, `gateway.servers.approve[0] "prod-*" at ` + g.Source + ":4:29"},
		{"fs", "fs__write_file", false, true, `gateway.tools.approve[0] "*__write*" at ` + g.Source + ":5:48"},
		{"fs", "fs__rm", true, true, "gateway.approveDestructive at " + g.Source + ":6:5 (the tool is annotated destructiveHint: true)"},
		{"fs", "fs__read", false, false, ""},
	} {
		got, rule := pol.NeedsApproval(tc.server, tc.tool, tc.destructive)
		if got != tc.want || rule != tc.rule {
			t.Errorf("%s: %v %q, want %v %q", tc.tool, got, rule, tc.want, tc.rule)
		}
	}
	// A client entry adds approvals; it never removes the top-level ones
	// (a name is the client's own claim).
	ci, _ := g.For("ci-bot")
	if ci.ApprovalTimeout != 5*time.Second {
		t.Errorf("ci-bot timeout %s", ci.ApprovalTimeout)
	}
	for _, tool := range []string{"x__send", "fs__write_file"} {
		if ok, _ := ci.NeedsApproval("fs", tool, false); !ok {
			t.Errorf("ci-bot: %s does not need approval", tool)
		}
	}
	if ok, _ := ci.Tools.Decide("x__drop"); !ok {
		t.Error("ci-bot's tools block replaces the top-level allow and deny, as before")
	}
	relaxed, _ := g.For("relaxed")
	for _, tc := range []struct {
		tool        string
		destructive bool
	}{{"fs__write", false}, {"fs__rm", true}} {
		if ok, _ := relaxed.NeedsApproval("fs", tc.tool, tc.destructive); !ok {
			t.Errorf("relaxed escaped the approval of %s", tc.tool)
		}
	}
	if !g.HasApprovals() {
		t.Error("HasApprovals: false")
	}
	var none *Gateway
	if none.HasApprovals() || (&Gateway{Clients: []GatewayClient{{Match: "x"}}}).HasApprovals() {
		t.Error("HasApprovals without any")
	}
	if !(&Gateway{Clients: []GatewayClient{{Match: "x", Policy: GatewayPolicy{ApproveDestructive: &GatewayFlag{On: true}}}}}).HasApprovals() {
		t.Error("HasApprovals misses a clients entry")
	}
	if def, _ := none.For("x"); def.ApprovalTimeout != DefaultGatewayApprovalTimeout {
		t.Errorf("default approvalTimeout %s", def.ApprovalTimeout)
	}
	if ok, _ := (GatewayPolicy{}).NeedsApproval("a", "a__b", true); ok {
		t.Error("no rules need no approval")
	}
}

func TestGatewayApprovalErrors(t *testing.T) {
	_, err := loadGateway(t, "gw.json", `{"mcpServers": {}, "gateway": {
  "tools": {"approve": "x*"},
  "servers": {"approve": ["[z"]},
  "prompts": {"approve": ["*"]},
  "approveDestructive": "yes",
  "approvalTimeout": -5
}}`, nil)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
	for _, want := range []string{
		`gw.json:2:24: field "gateway.tools.approve": must be an array of strings`,
		`gw.json:3:27: field "gateway.servers.approve[0]": "[z" is not a valid glob`,
		`gw.json:4:15: field "gateway.prompts.approve": approvals apply to tool calls`,
		`gw.json:5:25: field "gateway.approveDestructive": must be true or false`,
		`gw.json:6:22: field "gateway.approvalTimeout": must not be negative`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
