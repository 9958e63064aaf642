package config

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func entryJSON(t *testing.T, e Entry) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func client(t *testing.T, id string) Client {
	t.Helper()
	c, err := ClientByID(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every client's scopes resolve to the documented files on each system.
func TestClientLocations(t *testing.T) {
	t.Parallel()
	env := func(goos string) PathEnv {
		return PathEnv{GOOS: goos, Home: "/h", ProjectDir: "/p/app", AppData: `/h/AppData/Roaming`, XDGConfigHome: "/h/.config"}
	}
	for _, tc := range []struct {
		client, scope, goos, file, container string
	}{
		{"claude-desktop", "", "darwin", "/h/Library/Application Support/Claude/claude_desktop_config.json", ""},
		{"claude-desktop", "user", "windows", "/h/AppData/Roaming/Claude/claude_desktop_config.json", ""},
		{"claude-desktop", "", "linux", "/h/.config/Claude/claude_desktop_config.json", ""},
		{"claude-code", "", "linux", "/h/.claude.json", ""},
		{"claude-code", "project", "linux", "/p/app/.mcp.json", ""},
		{"claude-code", "local", "darwin", "/h/.claude.json", "/projects/~1p~1app"},
		{"cursor", "", "linux", "/h/.cursor/mcp.json", ""},
		{"cursor", "project", "windows", "/p/app/.cursor/mcp.json", ""},
		{"vscode", "", "linux", "/h/.config/Code/User/mcp.json", ""},
		{"vscode", "", "darwin", "/h/Library/Application Support/Code/User/mcp.json", ""},
		{"vscode", "project", "linux", "/p/app/.vscode/mcp.json", ""},
		{"windsurf", "", "darwin", "/h/.codeium/windsurf/mcp_config.json", ""},
	} {
		c := client(t, tc.client)
		file, o, err := c.Location(tc.scope, env(tc.goos))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.client, tc.scope, err)
		}
		if file != filepath.FromSlash(tc.file) || o.Container != tc.container || o.Key != c.Key {
			t.Errorf("%s %q on %s: %s %q %q, want %s %q", tc.client, tc.scope, tc.goos, file, o.Container, o.Key, tc.file, tc.container)
		}
	}
	if _, _, err := client(t, "windsurf").Location("project", env("linux")); err == nil || !strings.Contains(err.Error(), "its scopes are user") {
		t.Errorf("a scope the client does not have: %v", err)
	}
	if _, err := ClientByID("zed"); err == nil || !strings.Contains(err.Error(), "claude-desktop, claude-code, cursor, vscode, windsurf") {
		t.Errorf("an unknown client: %v", err)
	}
}

func TestClientOfFile(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/p/.vscode/mcp.json":                  "vscode",
		"/p/.mcp.json":                         "claude-code",
		"/h/.claude.json":                      "claude-code",
		"/p/.cursor/mcp.json":                  "cursor",
		"/h/.codeium/windsurf/mcp_config.json": "windsurf",
		"/h/.config/mcpdeck/mcp.json":          "mcpdeck",
		"/p/mcp.json":                          "mcpdeck",
	} {
		key := "mcpServers"
		if strings.Contains(path, ".vscode") {
			key = "servers"
		}
		if got := ClientOfFile(path, key).ID; got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

// Exporting mcpdeck's entries writes each client's spelling: type, the URL
// field, variables, and only the fields the client reads.
func TestExport(t *testing.T) {
	t.Parallel()
	stdio := newEntry(t, `{"command": "npx", "args": ["-y", "pkg", "${workspaceFolder}"], "env": {"TOKEN": "${env:GH_TOKEN}", "LEVEL": "${LEVEL:-info}"}, "cwd": "/w", "pingInterval": "off"}`)
	remote := newEntry(t, `{"type": "streamable-http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${env:API_KEY}"}}`)
	for _, tc := range []struct {
		client        string
		stdio, remote string
		notes         []string
	}{
		{"claude-code",
			`{"type":"stdio","command":"npx","args":["-y","pkg","${workspaceFolder}"],"env":{"TOKEN":"${GH_TOKEN}","LEVEL":"${LEVEL:-info}"}}`,
			`{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${API_KEY}"}}`,
			[]string{`left out "cwd", "pingInterval"`, "${workspaceFolder} is kept as written; Claude Code does not expand it"}},
		{"vscode",
			`{"type":"stdio","command":"npx","args":["-y","pkg","${workspaceFolder}"],"env":{"TOKEN":"${env:GH_TOKEN}","LEVEL":"${env:LEVEL}"},"cwd":"/w"}`,
			`{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${env:API_KEY}"}}`,
			[]string{"VS Code has no defaults: ${LEVEL:-info} became ${env:LEVEL}", `left out "pingInterval"`}},
		{"cursor",
			`{"command":"npx","args":["-y","pkg","${workspaceFolder}"],"env":{"TOKEN":"${env:GH_TOKEN}","LEVEL":"${env:LEVEL}"}}`,
			`{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${env:API_KEY}"}}`,
			nil},
		{"windsurf",
			`{"command":"npx","args":["-y","pkg","${workspaceFolder}"],"env":{"TOKEN":"${env:GH_TOKEN}","LEVEL":"${env:LEVEL}"}}`,
			`{"serverUrl":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${env:API_KEY}"}}`,
			nil},
		{"claude-desktop",
			`{"command":"npx","args":["-y","pkg","${workspaceFolder}"],"env":{"TOKEN":"${env:GH_TOKEN}","LEVEL":"${LEVEL:-info}"}}`,
			"",
			[]string{"Claude Desktop does not expand variables"}},
	} {
		c := client(t, tc.client)
		got, notes, err := c.Export("s", stdio)
		if err != nil {
			t.Fatal(err)
		}
		if entryJSON(t, got) != tc.stdio {
			t.Errorf("%s stdio:\n got %s\nwant %s", tc.client, entryJSON(t, got), tc.stdio)
		}
		var all []string
		for _, n := range notes {
			all = append(all, n.String())
		}
		for _, want := range tc.notes {
			if !strings.Contains(strings.Join(all, "\n"), want) {
				t.Errorf("%s: notices %q lack %q", tc.client, all, want)
			}
		}
		got, _, err = c.Export("s", remote)
		if tc.remote == "" {
			if err == nil || !strings.Contains(err.Error(), "--gateway") {
				t.Errorf("%s took a remote server: %v", tc.client, err)
			}
			continue
		}
		if err != nil || entryJSON(t, got) != tc.remote {
			t.Errorf("%s remote: %v\n got %s\nwant %s", tc.client, err, entryJSON(t, got), tc.remote)
		}
	}
}

// Importing reads each client's spelling into mcpdeck's: Windsurf's
// serverUrl, VS Code's inputs (which mcpdeck cannot prompt for) and its
// own settings.
func TestImport(t *testing.T) {
	t.Parallel()
	got, notes := client(t, "windsurf").Import("github", newEntry(t, `{"serverUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GITHUB_PAT}"}}`))
	if entryJSON(t, got) != `{"url":"https://api.githubcopilot.com/mcp/","headers":{"Authorization":"Bearer ${env:GITHUB_PAT}"}}` || len(notes) != 0 {
		t.Errorf("windsurf: %s %v", entryJSON(t, got), notes)
	}
	got, notes = client(t, "vscode").Import("p", newEntry(t, `{"type": "stdio", "command": "npx", "env": {"K": "${input:perplexity-key}"}, "dev": {"watch": "x"}}`))
	if entryJSON(t, got) != `{"type":"stdio","command":"npx","env":{"K":"${env:PERPLEXITY_KEY}"}}` {
		t.Errorf("vscode: %s", entryJSON(t, got))
	}
	if len(notes) != 1 || !strings.Contains(notes[0].String(), `left out "dev"`) {
		t.Errorf("vscode notices: %v", notes)
	}
	got, _ = client(t, "claude-code").Import("c", newEntry(t, `{"type": "http", "url": "${API_BASE_URL:-https://api.example.com}/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}}`))
	if entryJSON(t, got) != `{"type":"http","url":"${API_BASE_URL:-https://api.example.com}/mcp","headers":{"Authorization":"Bearer ${env:API_KEY}"}}` {
		t.Errorf("claude-code: %s", entryJSON(t, got))
	}
}

// A secret typed on the command line lands as the person chose: by
// default an ${env:…} reference (and the variable named), or a VS Code
// input, or the value with a warning. Ordinary values stay as typed.
func TestStoreSecrets(t *testing.T) {
	t.Parallel()
	e := StdioEntry("npx", []string{"-y", "pkg"}, Pairs{{"GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, {"LOG_LEVEL", "debug"}}, "", "")
	got, inputs, notes, _ := StoreSecrets("gh", e, SecretAsEnv, Mcpdeck)
	if entryJSON(t, got) != `{"command":"npx","args":["-y","pkg"],"env":{"GITHUB_TOKEN":"${env:GITHUB_TOKEN}","LOG_LEVEL":"debug"}}` || len(inputs) != 0 {
		t.Errorf("env: %s %v", entryJSON(t, got), inputs)
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Message, "reads it from GITHUB_TOKEN") || strings.Contains(notes[0].Message, "ghp_") {
		t.Errorf("env notices: %v", notes)
	}
	got, _, _, _ = StoreSecrets("gh", e, SecretAsEnv, client(t, "claude-code"))
	if !strings.Contains(entryJSON(t, got), `"GITHUB_TOKEN":"${GITHUB_TOKEN}"`) {
		t.Errorf("env in Claude Code's syntax: %s", entryJSON(t, got))
	}
	r := RemoteEntry(TransportHTTP, "https://mcp.sentry.dev/mcp", Pairs{{"Authorization", "Bearer sntrys_abcdefghijklmnop"}, {"X-Region", "eu"}})
	got, inputs, notes, _ = StoreSecrets("sentry", r, SecretAsInput, client(t, "vscode"))
	if entryJSON(t, got) != `{"type":"http","url":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer ${input:sentry-authorization}","X-Region":"eu"}}` {
		t.Errorf("input: %s", entryJSON(t, got))
	}
	if len(inputs) != 1 || inputs[0].ID != "sentry-authorization" || !inputs[0].Password || len(notes) != 0 {
		t.Errorf("inputs %+v, notices %v", inputs, notes)
	}
	got, _, notes, _ = StoreSecrets("gh", e, SecretAsValue, Mcpdeck)
	if !strings.Contains(entryJSON(t, got), "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || len(notes) != 1 || !strings.Contains(notes[0].Message, "plain text") {
		t.Errorf("value: %s %v", entryJSON(t, got), notes)
	}
	if _, err := ParseSecretStorage("vault"); err == nil {
		t.Error("an unknown storage was accepted")
	}
}

// The gateway entry for each client: stdio with mcpdeck's own --config,
// or HTTP with the token as a reference the client expands.
func TestGatewayEntry(t *testing.T) {
	t.Parallel()
	g := GatewayTarget{Command: "/usr/local/bin/mcpdeck", Config: []string{"/h/.config/mcpdeck/mcp.json"}, TokenEnv: "MCPDECK_GATEWAY_TOKEN"}
	e, _, err := client(t, "claude-code").GatewayEntry(g)
	if err != nil || entryJSON(t, e) != `{"type":"stdio","command":"/usr/local/bin/mcpdeck","args":["--config","/h/.config/mcpdeck/mcp.json","gateway"]}` {
		t.Errorf("claude-code stdio: %v %s", err, entryJSON(t, e))
	}
	g.URL = "http://127.0.0.1:8765/mcp"
	e, inputs, err := client(t, "vscode").GatewayEntry(g)
	if err != nil || entryJSON(t, e) != `{"type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${input:mcpdeck-token}"}}` || len(inputs) != 1 {
		t.Errorf("vscode http: %v %s %v", err, entryJSON(t, e), inputs)
	}
	e, _, _ = client(t, "claude-code").GatewayEntry(g)
	if entryJSON(t, e) != `{"type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${MCPDECK_GATEWAY_TOKEN}"}}` {
		t.Errorf("claude-code http: %s", entryJSON(t, e))
	}
	e, _, _ = client(t, "windsurf").GatewayEntry(g)
	if entryJSON(t, e) != `{"serverUrl":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${env:MCPDECK_GATEWAY_TOKEN}"}}` {
		t.Errorf("windsurf http: %s", entryJSON(t, e))
	}
	if _, _, err := client(t, "claude-desktop").GatewayEntry(g); err == nil {
		t.Error("Claude Desktop took an HTTP gateway")
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"perplexity-key": "PERPLEXITY_KEY", "X-API-Key": "X_API_KEY", "sentry_Authorization": "SENTRY_AUTHORIZATION", "1password": "MCP_1PASSWORD"} {
		if got := EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
	if !slices.Contains(Mcpdeck.Fields, "type") {
		t.Error("mcpdeck's own fields lack type")
	}
}

// A client that expands no variables (Claude Desktop) cannot take a
// reference for a secret: the person is told to store the value or use
// the gateway, and nothing empty or unexpandable is written.
func TestStoreSecretsWhereNothingExpands(t *testing.T) {
	t.Parallel()
	e := StdioEntry("npx", []string{"-y", "pkg"}, Pairs{{"GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}, "", "")
	desktop := client(t, "claude-desktop")
	for _, how := range []SecretStorage{SecretAsEnv, SecretAsInput} {
		if got, _, _, err := StoreSecrets("gh", e, how, desktop); err == nil || !strings.Contains(err.Error(), "--gateway") {
			t.Errorf("%s: %s %v", how, entryJSON(t, got), err)
		}
	}
	got, _, notes, err := StoreSecrets("gh", e, SecretAsValue, desktop)
	if err != nil || !strings.Contains(entryJSON(t, got), "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || len(notes) != 1 {
		t.Errorf("as a value: %v %s %v", err, entryJSON(t, got), notes)
	}
}
