package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func wantOut(t *testing.T, r result, code int, texts ...string) {
	t.Helper()
	wantCode(t, r, code)
	for _, s := range texts {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("output lacks %q:\nstdout %s\nstderr %s", s, r.stdout, r.stderr)
		}
	}
}

func TestResourcesAndReadOnTheDemoServer(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	wantOut(t, h.run(t, "", "resources"), ExitOK, "demo    status  demo://status  text/plain")
	r := h.run(t, "", "resources", "demo", "--templates", "--json")
	wantCode(t, r, ExitOK)
	var tmpl struct {
		Templates []struct{ Server, URITemplate string } `json:"templates"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tmpl); err != nil || len(tmpl.Templates) != 1 || tmpl.Templates[0].URITemplate != "demo://greeting/{name}" {
		t.Fatalf("templates --json = %s (%v)", r.stdout, err)
	}
	wantOut(t, h.run(t, "", "read", "demo", "demo://greeting/Ada"), ExitOK, "Hello, Ada!")
	wantOut(t, h.run(t, "", "read", "demo", "demo://status", "--json"), ExitOK, `"contents": [`, `"uri": "demo://status"`)
	out := filepath.Join(t.TempDir(), "status.txt")
	wantOut(t, h.run(t, "", "read", "demo", "demo://status", "-o", out), ExitOK, "bytes to "+out)
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "tool calls: 0") {
		t.Errorf("-o wrote %q (%v)", data, err)
	}
	r = h.run(t, "", "read", "demo", "demo://stauts")
	wantOut(t, r, ExitUsage, "not found", "did you mean demo://status?")
	wantOut(t, h.run(t, "", "read", "demo"), ExitUsage, "give SERVER and URI")
	wantOut(t, h.run(t, "", "read", "dmeo", "demo://status"), ExitUsage, `no server "dmeo"`, "did you mean demo?")
}

func TestPromptsPromptAndCompleteOnTheDemoServer(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	wantOut(t, h.run(t, "", "prompts"), ExitOK, "demo    greet   name*")
	wantOut(t, h.run(t, "", "prompt", "demo", "greet", "name=Ada"), ExitOK, "[user]", "Please greet Ada warmly")
	wantOut(t, h.run(t, "", "prompt", "demo", "greet", `{"name":"Grace"}`, "--json"), ExitOK, `"role": "user"`, "Please greet Grace")
	wantOut(t, h.run(t, "", "prompt", "demo", "greet"), ExitUsage, `prompt "greet" needs name`)
	wantOut(t, h.run(t, "", "prompt", "demo", "gret", "name=x"), ExitUsage, `no prompt "gret"`, "did you mean greet?")
	wantOut(t, h.run(t, "", "prompt", "demo", "gret", "name=x", "--json"), ExitUsage, `"kind": "unknown-prompt"`, `"server": "demo"`)
	wantOut(t, h.run(t, "", "prompt", "demo", "greet", "name"), ExitUsage, "KEY=VALUE")

	r := h.run(t, "", "complete", "demo", "--prompt", "greet", "name", "G")
	wantCode(t, r, ExitOK)
	if strings.TrimSpace(r.stdout) != "Grace" {
		t.Errorf("complete --prompt printed %q, want Grace", r.stdout)
	}
	r = h.run(t, "", "complete", "demo", "--resource", "demo://greeting/{name}", "name", "a", "--json")
	wantOut(t, r, ExitOK, `"Ada"`, `"Alan"`, `"total": 2`)
	wantOut(t, h.run(t, "", "complete", "demo", "name", "G"), ExitUsage, "--prompt NAME or --resource TEMPLATE")
	wantOut(t, h.run(t, "", "complete", "demo", "--prompt", "nope", "name", "G"), ExitUsage, `no prompt "nope"`)
}

func TestToolDetailAndDidYouMean(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	wantOut(t, h.run(t, "", "tools", "demo", "add"), ExitOK, "tool         add", "── input schema", "── example arguments", `"a": 0`, "── output schema")
	r := h.run(t, "", "tools", "demo", "echo", "--json")
	wantCode(t, r, ExitOK)
	var tool struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tool); err != nil || tool.Name != "demo__echo" || len(tool.InputSchema) == 0 {
		t.Fatalf("tools demo echo --json = %s (%v)", r.stdout, err)
	}
	wantOut(t, h.run(t, "", "tools", "demo", "ehco"), ExitUsage, `unknown tool "ehco"`, "did you mean echo?")
	wantOut(t, h.run(t, "", "call", "demo", "ech", `{"text":"x"}`), ExitUsage, "did you mean echo?")
}

// Shell completion offers configured servers, and the tool names a
// previous listing remembered, without starting anything.
func TestShellCompletion(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0"), "other": srvDemo(t, "0")})
	h.env = append(h.env, "XDG_CACHE_HOME="+filepath.Join(h.dir, "cache"))
	r := h.run(t, "", "__complete", "read", "d")
	if !strings.Contains(r.stdout, "demo\n") || strings.Contains(r.stdout, "other") {
		t.Errorf("completing a server offered %q", r.stdout)
	}
	wantCode(t, h.run(t, "", "tools", "demo"), ExitOK)
	r = h.run(t, "", "__complete", "call", "demo", "e")
	if !strings.Contains(r.stdout, "echo\n") || strings.Contains(r.stdout, "add\n") {
		t.Errorf("completing a tool offered %q", r.stdout)
	}
	r = h.run(t, "", "__complete", "prompt", "demo", "")
	if !strings.Contains(r.stdout, "greet\n") {
		t.Errorf("completing a prompt offered %q", r.stdout)
	}
}

// server-everything's resources, templates, prompts, completions and
// roots, over Streamable HTTP (one server for every command) and, for what
// crosses the wire differently, over stdio: a binary blob, a prompt's
// arguments, a completion, and roots (a request from the server). Each
// stdio command starts its own Node server (most of a second of CPU), so
// the listings, the same bytes either way, are read over HTTP only.
func TestEverythingPrimitives(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			h := newHeadless(t, nil)
			var target []string
			all := transport == "http"
			if all {
				target = []string{"--url", jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"}
			} else {
				node, script := jsonrpctest.Everything(t)
				target = []string{"--stdio", node + " " + script}
			}
			run := func(args ...string) result { return h.run(t, "", append(args, target...)...) }
			if all {
				wantOut(t, run("resources"), ExitOK, "demo://resource/static/document/architecture.md", "text/markdown")
				wantOut(t, run("resources", "--templates"), ExitOK, "demo://resource/dynamic/text/{resourceId}")
				wantOut(t, run("read", "demo://resource/dynamic/text/7"), ExitOK, "Resource 7: This is a plaintext resource")
			}
			blob := filepath.Join(t.TempDir(), "blob")
			wantOut(t, run("read", "demo://resource/dynamic/blob/7", "-o", blob), ExitOK, "bytes to")
			if data, err := os.ReadFile(blob); err != nil || !strings.Contains(string(data), "Resource 7") {
				t.Errorf("the blob decoded to %q (%v)", data, err)
			}
			if all {
				wantOut(t, run("prompts"), ExitOK, "args-prompt", "city*, state", "completable-prompt")
			}
			wantOut(t, run("prompt", "args-prompt", "city=Paris", "state=Texas"), ExitOK, "[user]", "Paris", "Texas")
			r := run("complete", "--prompt", "completable-prompt", "department", "E")
			wantOut(t, r, ExitOK, "Engineering")
			if all {
				wantOut(t, run("complete", "--resource", "demo://resource/dynamic/text/{resourceId}", "resourceId", "1", "--json"), ExitOK, `"values"`)
				// Roots are declared only when there are some: without --root
				// the server offers no get-roots-list tool at all.
				wantOut(t, run("call", "get-roots-list"), ExitUsage, `unknown tool "get-roots-list"`)
			}
			root := t.TempDir()
			wantOut(t, h.run(t, "", append([]string{"call", "--root", root, "get-roots-list"}, target...)...), ExitOK, "file://"+root)
			if all {
				wantOut(t, run("tools", "get-sum"), ExitOK, "tool         get-sum", "── input schema")
			}
		})
	}
}

func TestConfigShowsEveryField(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{"mcpServers": {
		"local": {"command": "srv", "envFile": "local.env", "envInherit": ["AWS_PROFILE"], "secrets": ["DB_URL"],
		          "env": {"DB_URL": "postgres://u:p@h/db"}, "logLevel": "debug", "roots": ["/srv/data"]},
		"remote": {"url": "https://example.com/mcp", "oauth": {"clientId": "deck", "clientSecret": "s3cr3t-value-123", "scopes": ["read", "write"], "redirectPort": 8765}}
	}}`)
	w.write(t, filepath.Join(w.userDir, "local.env"), "A=1\n")
	code, stdout, stderr := w.run(t, "config", "show")
	if code != ExitOK {
		t.Fatalf("config show: %d %s", code, stderr)
	}
	for _, want := range []string{"envFile      " + filepath.Join(w.userDir, "local.env"), "envInherit   the default set and AWS_PROFILE",
		"secrets      DB_URL", "logLevel     debug", "roots        /srv/data",
		"oauth        clientId deck, clientSecret ••••••, scopes read write, redirectPort 8765"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("config show lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = w.run(t, "config", "show", "--json")
	if code != ExitOK || strings.Contains(stdout, "s3cr3t-value-123") || strings.Contains(stdout, "postgres://") {
		t.Fatalf("config show --json leaked a secret or failed (%d):\n%s", code, stdout)
	}
	var show struct {
		Servers []struct {
			Name       string   `json:"name"`
			EnvFile    string   `json:"envFile"`
			EnvInherit any      `json:"envInherit"`
			Secrets    []string `json:"secrets"`
			LogLevel   string   `json:"logLevel"`
			Roots      []string `json:"roots"`
			OAuth      *struct {
				ClientID     string `json:"clientId"`
				ClientSecret string `json:"clientSecret"`
			} `json:"oauth"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(stdout), &show); err != nil || len(show.Servers) != 2 {
		t.Fatalf("config show --json: %v\n%s", err, stdout)
	}
	local, remote := show.Servers[0], show.Servers[1]
	if local.EnvFile == "" || local.LogLevel != "debug" || len(local.Roots) != 1 || len(local.Secrets) != 1 || local.EnvInherit == nil {
		t.Errorf("local = %+v", local)
	}
	if remote.OAuth == nil || remote.OAuth.ClientID != "deck" || remote.OAuth.ClientSecret != "••••••" {
		t.Errorf("remote oauth = %+v", remote.OAuth)
	}
}

// When the only server failed, tools, prompts and resources print no
// empty table: stdout stays empty, stderr says why, and the exit code is
// the failure's (found by qa: the header alone was printed).
func TestListsPrintNoEmptyTableWhenNothingIsListed(t *testing.T) {
	t.Parallel()
	cfg := fakeConfig(t, "empty-table", map[string]jsonrpctest.Mode{"broken": jsonrpctest.ExitEarly})
	for _, args := range [][]string{{"tools"}, {"prompts"}, {"resources"}} {
		r := runBin(t, t.TempDir(), nil, "", append([]string{"--config", cfg}, args...)...)
		if r.code == ExitOK || r.stdout != "" || !strings.Contains(r.stderr, `"broken"`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a failure, nothing on stdout, the reason on stderr", args[0], r.code, r.stdout, r.stderr)
		}
	}
	// A server that answers but lists nothing: no table either; stderr
	// says so, and the exit code is 0.
	cfg = fakeConfig(t, "empty-table", map[string]jsonrpctest.Mode{"plain": jsonrpctest.Normal})
	r := runBin(t, t.TempDir(), nil, "", "--config", cfg, "prompts")
	if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "no prompts") {
		t.Errorf("prompts of a server with none: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
