package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

const gatewaySecret = "gw-token-never-shown-42"

// gatewayWorld has a user file with a gateway block: a token, an origin,
// rules at the top level and for one client.
func gatewayWorld(t *testing.T) configWorld {
	w := newConfigWorld(t)
	t.Setenv("MCPDECK_GATEWAY_TOKEN", "")
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{
  "mcpServers": {"notes": {"command": "notes-server"}},
  "gateway": {
    "token": "`+gatewaySecret+`",
    "allowedOrigins": ["https://ide.example.com"],
    "servers": {"allow": ["notes", "demo*"]},
    "tools": {"deny": ["*__delete*"]},
    "maxConcurrent": 4,
    "clients": [
      {"match": "claude-*", "tools": {"deny": ["*__write*", "*__delete*"]}, "callTimeout": "30s"},
      {"match": "ci-*"}
    ]
  }
}
`)
	return w
}

// config show prints the gateway block as resolved: the defaults filled
// in, each client entry with what it sets, and where the token comes
// from, never the token itself, not even with --reveal.
func TestConfigShowGateway(t *testing.T) {
	w := gatewayWorld(t)
	code, stdout, stderr := w.run(t, "config", "show", "--reveal")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stdout, gatewaySecret) {
		t.Fatalf("config show --reveal printed the gateway token:\n%s", stdout)
	}
	for _, want := range []string{"Gateway", "token          •••••• (gateway.token)", "callTimeout    1m0s", "maxConcurrent  4",
		"claude-*: tools deny *__write*, *__delete*; callTimeout 30s", "ci-*: (the top-level policy)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	golden.RequireEqual(goldenTB{t, "show-gateway-text"}, w.normalize(stdout))

	code, stdout, _ = w.run(t, "config", "show", "--json")
	if code != ExitOK || strings.Contains(stdout, gatewaySecret) {
		t.Fatalf("exit %d, or the token in:\n%s", code, stdout)
	}
	var out showOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Gateway == nil {
		t.Fatalf("no gateway in the JSON: %v\n%s", err, stdout)
	}
	gw := out.Gateway
	if gw.Token != "••••••" || gw.TokenFrom != "gateway.token" || gw.MaxConcurrent != 4 || gw.CallTimeout != "1m0s" ||
		len(gw.Clients) != 2 || gw.Clients[0].CallTimeout != "30s" || gw.Servers == nil || len(gw.Servers.Allow) != 2 {
		t.Fatalf("gateway: %+v", gw)
	}
	golden.RequireEqual(goldenTB{t, "show-gateway-json"}, w.normalize(stdout))

	// MCPDECK_GATEWAY_TOKEN wins, and says so.
	t.Setenv("MCPDECK_GATEWAY_TOKEN", "from-the-environment-123")
	_, stdout, _ = w.run(t, "config", "show")
	if !strings.Contains(stdout, "MCPDECK_GATEWAY_TOKEN (set; it wins over gateway.token)") || strings.Contains(stdout, "from-the-environment-123") {
		t.Fatalf("with the variable set:\n%s", stdout)
	}
}

// Without a gateway block, config show says nothing about a gateway, and
// the JSON has no gateway member.
func TestConfigShowNoGateway(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{"mcpServers": {"notes": {"command": "notes-server"}}}`)
	_, stdout, _ := w.run(t, "config", "show")
	_, js, _ := w.run(t, "config", "show", "--json")
	if strings.Contains(stdout, "\nGateway\n") || strings.Contains(js, `"gateway":`) {
		t.Fatalf("a gateway section without a gateway block:\n%s\n%s", stdout, js)
	}
}
