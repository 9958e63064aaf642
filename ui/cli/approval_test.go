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

// An unapproved project file shows what it says: config validate and
// config show print its ${VAR} references as written, never a value of
// the user's environment (a CI log would keep it), and that holds for
// envFile, command, args, cwd and url alike. Approved, it is expanded.
func TestUnapprovedFileExpandsNothingFromTheEnvironment(t *testing.T) {
	w := newConfigWorld(t)
	const token = "ghp_fromTheEnvironment0123456789"
	t.Setenv("GITHUB_TOKEN", token)
	t.Setenv("SOME_HOST", "internal.example.com")
	w.write(t, filepath.Join(w.project, ".mcp.json"), `{"mcpServers": {
		"gh": {"command": "/bin/${GITHUB_TOKEN}", "args": ["--key=${env:GITHUB_TOKEN}"], "cwd": "/w/${GITHUB_TOKEN}",
		       "envFile": "/x/${GITHUB_TOKEN}", "env": {"A": "${GITHUB_TOKEN:-none}"}},
		"web": {"url": "https://${SOME_HOST}/mcp"}
	}}`)
	for _, args := range [][]string{
		{"config", "validate"}, {"config", "validate", "--json"},
		{"config", "show"}, {"config", "show", "--json"}, {"config", "show", "--reveal"},
	} {
		code, stdout, stderr := w.run(t, args...)
		out := stdout + stderr
		if strings.Contains(out, token) || strings.Contains(out, "internal.example.com") {
			t.Errorf("%v (exit %d) shows a value of the environment:\n%s", args, code, out)
		}
		if args[1] == "show" && !strings.Contains(out, "/x/${GITHUB_TOKEN}") {
			t.Errorf("%v does not show the envFile as written:\n%s", args, out)
		}
	}
	if code, stdout, stderr := w.run(t, "config", "validate"); code != ExitOK {
		t.Errorf("validate of the unapproved file: exit %d\n%s%s", code, stdout, stderr)
	}
	// Approved, the file is read in full: its envFile is missing now.
	code, stdout, stderr := w.run(t, "config", "show", "--trust-project")
	if !strings.Contains(stdout+stderr, "cannot read /x/"+token) {
		t.Errorf("approved: exit %d, want the envFile expanded and reported missing:\n%s%s", code, stdout, stderr)
	}
}

// --trust-project approves and then loads the configuration again, as
// leniently as a command on an approved project does: a server of the
// user's file whose definition is invalid (a variable not set here) does
// not stop the named server from running, before or after the approval.
func TestTrustProjectKeepsOtherServersInvalidDefinitions(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.userDir, "mcp.json"),
		`{"mcpServers": {"remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:MCPDECK_TEST_UNSET_TOKEN}"}}}}`)
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"f": srvFake(jsonrpctest.Normal)}})
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, filepath.Join(w.project, ".mcp.json"), string(data))
	code, stdout, stderr := w.run(t, "tools", "f", "--trust-project")
	if code != ExitOK || !strings.Contains(stdout, "echo") {
		t.Fatalf("--trust-project with another server invalid: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = w.run(t, "tools", "f")
	if code != ExitOK || !strings.Contains(stdout, "echo") {
		t.Fatalf("approved, with another server invalid: exit %d\n%s%s", code, stdout, stderr)
	}
}

// config validate of a valid project file that is not approved says it is
// valid and not approved (its servers will not start), and how to approve
// it; once approved it says so.
func TestValidateSaysAFileIsNotApproved(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.project, ".mcp.json"), `{"mcpServers": {"a": {"command": "/bin/true"}}}`)
	code, stdout, stderr := w.run(t, "config", "validate")
	if code != ExitOK || !strings.Contains(stdout, "ok: 1 server in 1 file, 1 not approved") ||
		!strings.Contains(stdout, ".mcp.json  NOT APPROVED: its servers will not start until approved (--trust-project or the TUI)") {
		t.Fatalf("validate of an unapproved file: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := w.run(t, "config", "show", "--trust-project"); code != ExitOK {
		t.Fatalf("approving: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = w.run(t, "config", "validate")
	if code != ExitOK || !strings.Contains(stdout, ".mcp.json  approved") || strings.Contains(stdout, "NOT APPROVED") {
		t.Fatalf("validate of the approved file: exit %d\n%s%s", code, stdout, stderr)
	}
}
