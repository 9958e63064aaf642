package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMisspeltFieldsAreNamedByEveryCommand: a misspelt field ("comand",
// "arg", "enviroment") is not applied, so every command that loads the
// file says "did you mean", as config validate does: a call on a server
// whose env is misspelt (it runs, without that env), and the failure of a
// server whose command is misspelt (it cannot run at all).
func TestMisspeltFieldsAreNamedByEveryCommand(t *testing.T) {
	t.Parallel()
	demo := srvDemo(t, "0")
	demo["enviroment"] = map[string]string{"LOG_LEVEL": "debug"}
	h := newHeadless(t, map[string]map[string]any{
		"demo": demo,
		"bad":  {"comand": "node", "arg": []string{"server.js"}},
	})
	const envTypo = `field "enviroment": unknown field is ignored (did you mean env?)`
	const cmdTypo = `"comand" is no field mcpdeck reads: did you mean command?`
	const argTypo = `field "arg": unknown field is ignored (did you mean args?)`
	for _, tc := range []struct {
		args  []string
		code  int
		says  []string
		never string
	}{
		{[]string{"config", "validate"}, ExitUsage, []string{envTypo, cmdTypo, argTypo}, ""},
		{[]string{"call", "demo", "echo", `{"text":"x"}`}, ExitOK, []string{envTypo}, "comand"}, // only the servers it uses
		{[]string{"tools", "demo"}, ExitOK, []string{envTypo}, "comand"},
		{[]string{"servers", "bad"}, ExitUsage, []string{cmdTypo, argTypo}, "enviroment"},
		{[]string{"call", "bad", "x", "--json"}, ExitUsage, []string{cmdTypo}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := h.run(t, "", tc.args...)
			wantOut(t, r, tc.code, tc.says...)
			if tc.never != "" && strings.Contains(r.stderr, tc.never) {
				t.Errorf("stderr speaks of a server the command does not use (%q):\n%s", tc.never, r.stderr)
			}
		})
	}
}

// TestEmptyArgumentIsNamed: an argument that is empty ("", an unset
// ${VAR:-}) makes node read its program from stdin, mcpdeck's pipe, so the
// server sits in initializing until its startup timeout. The load warns,
// naming the server and the argument, and the timeout names it as the
// likely cause.
func TestEmptyArgumentIsNamed(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH; it is the server that waits on stdin")
	}
	h := newHeadless(t, map[string]map[string]any{
		"n": {"command": node, "args": []string{"${EMPTY_SCRIPT:-}"}, "startupTimeout": "1s"},
	})
	const warned = `server "n": field "args[0]": is empty ("${EMPTY_SCRIPT:-}" expanded to nothing)`
	wantOut(t, h.run(t, "", "config", "validate"), ExitOK, warned)
	r := h.run(t, "", "call", "n", "x")
	wantOut(t, r, ExitTimeout, warned, "not ready within the startup timeout of 1s; its args[0] is empty, the likely cause")
}

// TestServersOutsideMcpServersAreNamedByEveryCommand: a server pasted
// without "mcpServers" around it is no server, so the command that names
// it would only say "no server "github"" and the one that lists would
// list nothing: both say where the server went, as config validate does.
// Nothing starts, so the commands run in-process.
func TestServersOutsideMcpServersAreNamedByEveryCommand(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"github": {"command": "npx", "args": ["-y", "server-github"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const said = `unknown top-level field "github" is ignored: it looks like a server (it has "command"), and servers go inside "mcpServers"`
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"call", "github", "search", "{}"}, ExitUsage},
		{[]string{"tools"}, ExitOK},
		{[]string{"servers", "--json"}, ExitOK},
	} {
		code, stdout, stderr := runCLI(append([]string{"--config", cfg}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, said) {
			t.Errorf("%s: exit %d, want %d, and stderr saying %q:\nstdout %s\nstderr %s", strings.Join(tc.args, " "), code, tc.code, said, stdout, stderr)
		}
	}
	// config validate passes the file, and its verdict counts the warning.
	code, stdout, stderr := runCLI("config", "validate", cfg)
	if code != ExitOK || !strings.HasPrefix(stdout, "ok: 0 servers in 1 file, 1 warning (on stderr)\n") || !strings.Contains(stderr, said) {
		t.Errorf("config validate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
