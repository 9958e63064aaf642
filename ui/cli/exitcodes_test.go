package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/auth/authtest"
)

// readmeExitCodes reads the exit code table of the README: its code
// column, in order.
func readmeExitCodes(t *testing.T) []int {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d) \| `).FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[1])
		codes = append(codes, n)
	}
	return codes
}

// TestExitCodesFollowTheREADME runs every headless command through the
// situations the README's exit code table names, on the built binary, and
// checks the code each exits with. Every code of the table is covered.
func TestExitCodesFollowTheREADME(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)
	slow := srvFake(jsonrpctest.SlowInit, jsonrpctest.WithEnv(jsonrpctest.EnvDelay, "5s"))
	slow["startupTimeout"] = "300ms"
	// The go-sdk peer's sample tool asks for sampling: a 2026-07-28 input
	// request, or a legacy sampling/createMessage the declined answer of
	// which (-1) it passes back as its error.
	samplerModern, samplerLegacy := srvFake(jsonrpctest.GoSDKModern), srvFake(jsonrpctest.GoSDKModern)
	samplerModern["protocol"], samplerLegacy["protocol"] = "modern", "legacy"
	h := newHeadless(t, map[string]map[string]any{
		"ok":             srvFake(jsonrpctest.Normal),
		"hang":           srvFake(jsonrpctest.Hang),
		"broken":         srvFake(jsonrpctest.ExitEarly),
		"slow":           slow,
		"leaky":          srvFake(jsonrpctest.SecretLeak, jsonrpctest.WithSecret("tok-leaked-0123456789")),
		"bad":            {"command": "x", "timeout": "5 s"},
		"schema":         srvFake(jsonrpctest.InvalidSchema),
		"login":          {"url": rs.URL},
		"input":          {"command": "x", "args": []string{"${input:key}"}},
		"sampler-modern": samplerModern,
		"sampler-legacy": samplerLegacy,
	})
	h.env = append(h.env, env...)
	h.env = append(h.env, "XDG_STATE_HOME="+filepath.Join(h.dir, "xdg-state")) // authEnv's own state dir would win otherwise
	recording := filepath.Join(h.dir, "session.jsonl")
	if r := h.run(t, "", "--record", recording, "call", "ok", "echo", `{"text":"recorded"}`); r.code != ExitOK {
		t.Fatalf("recording a session: exit %d\n%s", r.code, r.stderr)
	}
	brokenJSON := filepath.Join(h.dir, "broken.json")
	if err := os.WriteFile(brokenJSON, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		code int
		args []string
		why  string
	}{
		{ExitOK, []string{"servers", "ok"}, "the server is ready"},
		{ExitOK, []string{"tools", "ok"}, "tools listed"},
		{ExitOK, []string{"call", "ok", "echo", `{"text":"hi"}`}, "the tool answered"},
		{ExitOK, []string{"resources", "ok"}, "resources listed"},
		{ExitOK, []string{"prompts", "ok"}, "prompts listed"},
		{ExitOK, []string{"watch", "ok", "--for", "300ms"}, "watched until --for"},
		{ExitOK, []string{"config", "show"}, "configuration shown"},
		{ExitOK, []string{"auth", "status", "login"}, "status of a server that needs a login"},
		{ExitOK, []string{"replay", recording, "--text"}, "a recording printed"},
		{ExitOK, []string{"version"}, "version"},
		{ExitOK, []string{"diff", recording, "ok"}, "a recording and its server offer the same"},
		{ExitOK, []string{"bench", "ok", "echo", `{"text":"hi"}`, "-n", "5"}, "a load test"},

		{ExitToolError, []string{"call", "ok", "fail", `{}`}, "the tool answered isError"},
		{ExitToolError, []string{"check", "leaky"}, "a check failed (a secret in a tool description)"},
		{ExitToolError, []string{"diff", recording, "leaky"}, "diff found a difference (another description)"},
		{ExitToolError, []string{"call", "sampler-modern", "sample", `{"prompt":"x"}`, "--sampling", "decline"}, "sampling declined, 2026-07-28"},
		{ExitToolError, []string{"call", "sampler-legacy", "sample", `{"prompt":"x"}`, "--sampling", "decline"}, "sampling declined, 2025-11-25"},

		{ExitUsage, []string{"--no-such-flag"}, "an unknown flag"},
		{ExitUsage, []string{"no-such-command"}, "an unknown command"},
		{ExitUsage, []string{"servers", "nosuch"}, "an unknown server"},
		{ExitUsage, []string{"call", "ok", "nosuch", `{}`}, "an unknown tool"},
		{ExitUsage, []string{"call", "ok", "echo", `{"text":`}, "arguments that are not JSON"},
		{ExitUsage, []string{"call", "ok", "echo", `{}`}, "arguments the schema refuses"},
		{ExitUsage, []string{"servers", "bad"}, "a server whose definition is invalid"},
		{ExitUsage, []string{"servers", "input"}, "a server that needs an input only VS Code gives"},
		{ExitUsage, []string{"tools", "bad"}, "tools of an invalid server"},
		{ExitUsage, []string{"config", "validate", "--config", brokenJSON}, "an mcp.json that is not JSON"},
		{ExitUsage, []string{"replay", filepath.Join(h.dir, "missing.jsonl")}, "a recording that does not exist"},
		{ExitUsage, []string{"gateway", "--http", "0.0.0.0:0"}, "a non-loopback gateway without --allow-remote"},
		{ExitUsage, []string{"replay", recording, "--serve", "--speed", "-1"}, "a mock at a negative speed"},
		{ExitUsage, []string{"bench", "ok", "nosuch"}, "a load test of an unknown tool"},
		{ExitUsage, []string{"diff", "ok"}, "diff with one side"},
		{ExitUsage, []string{"call", "ok", "echo", `{"text":"x"}`, "--record", "/dev/full"}, "a recording the disk is too full for"},
		{ExitUsage, []string{"watch", "ok", "--for", "300ms", "--record", "/dev/full"}, "a recording the disk is too full for, watching"},

		{ExitConnection, []string{"servers", "broken"}, "a server that cannot start"},
		{ExitConnection, []string{"servers", "login"}, "a server that needs a login"},
		{ExitConnection, []string{"servers", "ok", "broken"}, "one server of two cannot start"},
		{ExitConnection, []string{"servers", "--json", "login"}, "a server that needs a login, --json"},
		{ExitConnection, []string{"tools", "broken"}, "tools of a server that cannot start"},
		{ExitConnection, []string{"tools", "login"}, "tools of a server that needs a login"},
		{ExitConnection, []string{"call", "broken", "echo", `{"text":"x"}`}, "a call to a server that cannot start"},
		{ExitConnection, []string{"call", "ok", "crash", `{}`}, "the server died during the call"},
		{ExitConnection, []string{"call", "schema", "bad_type", `{"x":"y"}`}, "a tool whose input schema is not valid JSON Schema"},
		{ExitConnection, []string{"watch", "broken", "--for", "300ms"}, "watching a server that cannot start"},
		{ExitConnection, []string{"diff", "broken", "ok"}, "diff of a server that cannot start"},
		{ExitConnection, []string{"bench", "broken", "echo", `{"text":"x"}`}, "a load test of a server that cannot start"},

		{ExitTimeout, []string{"call", "hang", "echo", `{"text":"x"}`, "--timeout", "300ms"}, "--timeout passed"},
		{ExitTimeout, []string{"servers", "slow"}, "a server not ready within its startup timeout"},
		{ExitTimeout, []string{"tools", "slow"}, "tools of a server not ready within its startup timeout"},
	}
	covered := map[int]bool{}
	for _, tc := range cases {
		covered[tc.code] = true
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := h.run(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.why, r.code, tc.code, r.stdout, r.stderr)
			}
			if slices.Contains(tc.args, "/dev/full") {
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if last := lines[len(lines)-1]; !strings.Contains(last, "the recording /dev/full failed and is incomplete") {
					t.Errorf("%s: the last line does not say the recording failed: %q", tc.why, last)
				}
			}
		})
	}
	readme := readmeExitCodes(t)
	if want := []int{ExitOK, ExitToolError, ExitUsage, ExitConnection, ExitTimeout}; !slices.Equal(readme, want) {
		t.Fatalf("the README's exit code table lists %v, want %v", readme, want)
	}
	for _, code := range readme {
		if !covered[code] {
			t.Errorf("exit code %d of the README is not tested", code)
		}
	}
}
