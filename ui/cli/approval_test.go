package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A project file's envFile reaches its server only once the file is
// approved: --trust-project approves, and the command then loads the
// configuration again, so the server starts with the envFile's variables.
// The fake in SecretLeak mode puts FAKE_SECRET into a tool description,
// which shows whether the variable arrived (scrubbed, as a secret).
func TestTrustProjectReloadsEnvFile(t *testing.T) {
	w := newConfigWorld(t)
	srv := srvFake(jsonrpctest.SecretLeak)
	srv["envFile"] = "fake.env"
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"leak": srv}})
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, filepath.Join(w.project, ".mcp.json"), string(data))
	w.write(t, filepath.Join(w.project, "fake.env"), "FAKE_SECRET=tok-from-envfile-0123\n")

	code, _, stderr := w.run(t, "tools", "leak", "--json")
	if code != ExitUsage || !strings.Contains(stderr, "--trust-project") {
		t.Fatalf("unapproved: exit %d, stderr %q; want a refusal naming --trust-project", code, stderr)
	}
	code, stdout, stderr := w.run(t, "tools", "leak", "--json", "--trust-project")
	if code != ExitOK {
		t.Fatalf("--trust-project: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "tok-from-envfile") {
		t.Fatalf("the envFile secret was printed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "authenticated with token ••••••.") {
		t.Fatalf("the server did not receive the envFile's FAKE_SECRET (want it scrubbed in the description):\n%s", stdout)
	}
}
