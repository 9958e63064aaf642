package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A stdio server receives the default environment plus its own env, not
// mcpdeck's whole environment: a FAKE_SECRET set for mcpdeck does not reach
// the fake (which would put it in a tool description) unless envInherit
// names it.
func TestServerEnvironmentIsNotInherited(t *testing.T) {
	w := newConfigWorld(t)
	t.Setenv(jsonrpctest.EnvSecret, "mcpdeck-own-variable")
	write := func(srv map[string]any) {
		data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"leak": srv}})
		if err != nil {
			t.Fatal(err)
		}
		w.write(t, filepath.Join(w.userDir, "mcp.json"), string(data))
	}
	srv := srvFake(jsonrpctest.SecretLeak)
	write(srv)
	code, stdout, stderr := w.run(t, "tools", "leak", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "mcpdeck-own-variable") || !strings.Contains(stdout, "authenticated with token .") {
		t.Fatalf("the server saw a variable of mcpdeck's own environment:\n%s", stdout)
	}

	srv["envInherit"] = []string{jsonrpctest.EnvSecret}
	write(srv)
	code, stdout, stderr = w.run(t, "tools", "leak", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The inherited FAKE_SECRET arrived, and is scrubbed as the secret its
	// name says it is.
	if !strings.Contains(stdout, "authenticated with token ••••••.") || strings.Contains(stdout, "mcpdeck-own-variable") {
		t.Fatalf("envInherit did not pass %s, or it was not scrubbed:\n%s", jsonrpctest.EnvSecret, stdout)
	}
}
