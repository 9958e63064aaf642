package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/assets"
	"mcpdeck/config"
)

// goldenTB renames a test so golden.RequireEqual reads
// testdata/config/<name>.golden (regenerate with go test -update).
type goldenTB struct {
	testing.TB
	name string
}

func (g goldenTB) Name() string { return "config/" + g.name }

// configWorld is a project directory, a home, XDG config and state
// directories, and the process environment and working directory pointing
// at them, so discovery runs for real but hermetically.
type configWorld struct {
	root, project, userDir, stateDir string
}

func newConfigWorld(t *testing.T) configWorld {
	t.Helper()
	root := t.TempDir()
	w := configWorld{
		root:     root,
		project:  filepath.Join(root, "proj"),
		userDir:  filepath.Join(root, "xdg-config", "mcpdeck"),
		stateDir: filepath.Join(root, "xdg-state"),
	}
	for _, d := range []string{w.project, w.userDir, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg-config"))
	t.Setenv("XDG_STATE_HOME", w.stateDir)
	return w
}

// run runs the command line in-process from the project directory. The
// directory change lives in a subtest so it is undone before the caller
// reads its goldens, which are relative to the package directory.
func (w configWorld) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Run("run", func(t *testing.T) {
		t.Chdir(w.project)
		code, stdout, stderr = runCLI(args...)
	})
	return code, stdout, stderr
}

func (w configWorld) write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// normalize replaces the temporary root so goldens are stable.
func (w configWorld) normalize(s string) string {
	return strings.ReplaceAll(s, w.root, "$TMP")
}

// runCLI runs the command line in-process and returns its exit code and
// output.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

const (
	projectSecret = "sk-project-0123456789"
	headerSecret  = "hdr-secret-abcdefgh"
	userSecret    = "user-secret-zyxwvut"
)

// richWorld has every scope at once: two project files (one in VS Code's
// format, with comments and an input), a user file, name clashes and a
// warning.
func richWorld(t *testing.T) configWorld {
	w := newConfigWorld(t)
	t.Setenv("MCPDECK_TEST_TOKEN", headerSecret)
	w.write(t, filepath.Join(w.project, ".mcp.json"), `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}/docs", "--key=`+projectSecret+`"],
      "env": {"API_KEY": "`+projectSecret+`", "MODE": "ro"},
      "timeout": 90000
    },
    "shared": {"command": "shared-from-project", "autoApproveAll": true}
  }
}
`)
	w.write(t, filepath.Join(w.project, ".vscode", "mcp.json"), `// VS Code writes comments and trailing commas.
{
  "inputs": [{"type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true}],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${input:gh-token}"},
    },
    "search": {
      "type": "sse",
      "url": "https://search.example.com/sse",
      "headers": {"X-Token": "${MCPDECK_TEST_TOKEN}"},
      "pingInterval": "off",
    },
    "shared": {"command": "shared-from-vscode"},
  },
}
`)
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{
  "mcpServers": {
    "shared": {"command": "shared-from-user", "env": {"TOKEN": "`+userSecret+`"}},
    "notes": {"command": "~/bin/notes", "disabled": true, "autoReconnect": false}
  }
}
`)
	return w
}

func TestConfigShowText(t *testing.T) {
	w := richWorld(t)
	code, stdout, stderr := w.run(t, "config", "show")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, secret := range []string{projectSecret, headerSecret, userSecret} {
		if strings.Contains(stdout, secret) {
			t.Errorf("config show leaked secret %q:\n%s", secret, stdout)
		}
	}
	for _, want := range []string{"NOT APPROVED", "shared-from-project", "Shadowed", "needs input: ${input:gh-token}"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	golden.RequireEqual(goldenTB{t, "show-text"}, w.normalize(stdout))
}

func TestConfigShowJSON(t *testing.T) {
	w := richWorld(t)
	code, stdout, stderr := w.run(t, "config", "show", "--json")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var out showOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if len(out.Servers) != 5 || len(out.Shadowed) != 2 || len(out.Files) != 3 || len(out.Warnings) != 1 {
		t.Fatalf("got %d servers, %d shadowed, %d files, %d warnings", len(out.Servers), len(out.Shadowed), len(out.Files), len(out.Warnings))
	}
	for _, secret := range []string{projectSecret, headerSecret, userSecret} {
		if strings.Contains(stdout, secret) {
			t.Errorf("config show --json leaked secret %q", secret)
		}
	}
	golden.RequireEqual(goldenTB{t, "show-json"}, w.normalize(stdout))
}

func TestConfigShowReveal(t *testing.T) {
	w := richWorld(t)
	code, stdout, _ := w.run(t, "config", "show", "--reveal")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, secret := range []string{projectSecret, "${MCPDECK_TEST_TOKEN}"} {
		if !strings.Contains(stdout, secret) {
			t.Errorf("--reveal did not print %q", secret)
		}
	}
	// The header's variable is not expanded from the environment: its file
	// is not approved, so --reveal shows what the file says.
	if strings.Contains(stdout, headerSecret) {
		t.Errorf("--reveal expanded a variable of an unapproved file:\n%s", stdout)
	}
}

func TestConfigShowTrustProject(t *testing.T) {
	w := richWorld(t)
	_, before, _ := w.run(t, "config", "show", "--json")
	if !strings.Contains(before, `"approval": "not approved"`) {
		t.Fatalf("project files should start unapproved:\n%s", before)
	}
	if code, _, stderr := w.run(t, "config", "show", "--trust-project"); code != ExitOK {
		t.Fatalf("--trust-project: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(w.stateDir, "mcpdeck", "trust.json")); err != nil {
		t.Fatalf("approval not stored in the state dir: %v", err)
	}
	_, after, _ := w.run(t, "config", "show")
	if strings.Contains(after, "NOT APPROVED") || strings.Count(after, "  approved") != 2 {
		t.Fatalf("both project files should now be approved:\n%s", after)
	}
	// An edit asks again.
	w.write(t, filepath.Join(w.project, ".mcp.json"), `{"mcpServers": {"files": {"command": "something-else"}}}`)
	_, edited, _ := w.run(t, "config", "show")
	if strings.Count(edited, "NOT APPROVED") != 1 {
		t.Fatalf("the edited file should need approval again:\n%s", edited)
	}
}

func TestApproveProject(t *testing.T) {
	w := richWorld(t)
	t.Chdir(w.project)
	cfg, err := loadRunnable(nil)
	if err != nil {
		t.Fatal(err)
	}
	err = approveProject(cfg, false)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), "--trust-project") {
		t.Fatalf("unapproved project: error = %v, want an ExitUsage error naming --trust-project", err)
	}
	if err := approveProject(cfg, true); err != nil {
		t.Fatal(err)
	}
	if err := approveProject(cfg, false); err != nil {
		t.Fatalf("after approval: %v", err)
	}
}

const invalidConfig = `{
  "mcpServers": {
    "ok": {"command": "x", "surprise": 1},
    "bad args": {"command": "x", "args": "--flag"},
    "both": {"command": "x", "url": "https://example.com/mcp"},
    "remote": {"url": "file:///etc/passwd"},
    "env": {"command": "x", "env": {"PORT": 8080}, "args": ["${MCPDECK_TEST_UNSET_VAR}"]}
  }
}
`

func TestConfigValidateListsEveryError(t *testing.T) {
	w := newConfigWorld(t)
	bad := w.write(t, filepath.Join(w.root, "bad.json"), invalidConfig)
	broken := w.write(t, filepath.Join(w.root, "broken.json"), "{\"mcpServers\": {\"a\": {\"command\": \"x\"}\n")
	code, stdout, stderr := w.run(t, "config", "validate", bad, broken)
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	if n := strings.Count(stderr, "error: "); n != 7 {
		t.Errorf("got %d errors, want 7:\n%s", n, stderr)
	}
	golden.RequireEqual(goldenTB{t, "validate-errors"}, w.normalize(stderr))
}

func TestConfigValidateJSON(t *testing.T) {
	w := newConfigWorld(t)
	bad := w.write(t, filepath.Join(w.root, "bad.json"), invalidConfig)
	code, stdout, _ := w.run(t, "config", "validate", "--json", bad)
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
	var out validateOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if out.Valid || len(out.Errors) != 6 || len(out.Warnings) != 1 {
		t.Fatalf("valid=%v errors=%d warnings=%d", out.Valid, len(out.Errors), len(out.Warnings))
	}
	golden.RequireEqual(goldenTB{t, "validate-json"}, w.normalize(stdout))
}

func TestConfigValidateOK(t *testing.T) {
	w := richWorld(t)
	code, stdout, stderr := w.run(t, "config", "validate")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "ok: 5 servers in 3 files, 2 not approved, 1 warning (on stderr)\n") { // richWorld approves nothing
		t.Errorf("stdout = %q", stdout)
	}
	if !strings.Contains(stderr, `warning: `) || !strings.Contains(stderr, `field "autoApproveAll"`) {
		t.Errorf("stderr = %q, want the unknown-field warning", stderr)
	}
}

// A server with a broken definition does not hide the others: show lists
// every server, the broken ones marked with their problems, as the runtime
// keeps them (they never start, the others do).
func TestConfigShowMarksInvalidServers(t *testing.T) {
	w := newConfigWorld(t)
	bad := w.write(t, filepath.Join(w.root, "bad.json"), invalidConfig)
	good := w.write(t, filepath.Join(w.root, "good.json"), `{"mcpServers": {"fine": {"command": "x", "env": {"LOG_LEVEL": "debug", "API_TOKEN": "`+projectSecret+`"}}}}`)
	code, stdout, stderr := w.run(t, "config", "show", "--config", bad, "--config", good)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"fine  enabled", "LOG_LEVEL=debug", "API_TOKEN=" + config.RedactedValue,
		"bad args  INVALID: it will not start until fixed", bad + ":4:",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, projectSecret) {
		t.Errorf("config show leaked the token:\n%s", stdout)
	}
	code, stdout, _ = w.run(t, "config", "show", "--json", "--config", bad)
	var out showOutput
	if err := json.Unmarshal([]byte(stdout), &out); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	problems := 0
	for _, s := range out.Servers {
		problems += len(s.Invalid)
		// Nothing in the file disables them: "enabled" says what the file
		// says, as for a valid server (an invalid one read "enabled":
		// false, as though the file switched it off).
		if !s.Enabled {
			t.Errorf("server %q: \"enabled\": false, though its definition does not disable it", s.Name)
		}
	}
	if len(out.Servers) != 5 || problems != 6 {
		t.Errorf("got %d servers with %d problems, want 5 with the 6 problems:\n%s", len(out.Servers), problems, stdout)
	}
}

// A file that cannot be read as a configuration at all still fails.
func TestConfigShowBrokenFileExitsUsage(t *testing.T) {
	w := newConfigWorld(t)
	broken := w.write(t, filepath.Join(w.root, "broken.json"), "{\"mcpServers\": {\"a\": {\"command\": \"x\"}\n")
	code, stdout, stderr := w.run(t, "config", "show", "--config", broken)
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, broken+":") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want a usage error naming the file", code, stdout, stderr)
	}
}

func TestConfigFlagPlacement(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.project, ".mcp.json"), `{"mcpServers": {"discovered": {"command": "x"}}}`)
	f := w.write(t, filepath.Join(w.root, "only.json"), `{"mcpServers": {"only": {"command": "x"}}}`)
	for _, args := range [][]string{
		{"config", "--config", f, "show"},
		{"config", "show", "--config", f},
		{"config", "show", "--config=" + f},
	} {
		code, stdout, stderr := w.run(t, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stdout, "only  enabled") || strings.Contains(stdout, "discovered") {
			t.Errorf("%q: --config must replace discovery:\n%s", args, stdout)
		}
	}
}

func TestConfigShowDefault(t *testing.T) {
	w := newConfigWorld(t)
	code, stdout, stderr := w.run(t, "config", "show", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out showOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Servers) != 1 {
		t.Fatalf("servers = %+v, want the default demo server", out.Servers)
	}
	s := out.Servers[0]
	if s.Source != assets.DefaultConfigName || s.Scope != string(config.ScopeDefault) || s.Command != exe {
		t.Errorf("default server = %+v, want command %q from %q", s, exe, assets.DefaultConfigName)
	}
}

func TestConfigMissingFile(t *testing.T) {
	w := newConfigWorld(t)
	missing := filepath.Join(w.root, "nope.json")
	code, _, stderr := w.run(t, "config", "validate", missing)
	if code != ExitUsage || !strings.Contains(stderr, missing+": cannot read") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
