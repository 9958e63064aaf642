package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// TestParseClientFormats reads each client's real format from testdata and
// checks the outcome twice: a few facts in the table (so a regenerated
// golden cannot silently accept a regression in them) and the full
// rendering against testdata/golden/<file>.golden (go test -update).
func TestParseClientFormats(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"HOME":           "/home/ada",
		"API_KEY":        "k-1234567890",
		"SEARCH_API_KEY": "sk-search-abcdef",
	}
	tests := []struct {
		file        string
		wantServers []string // names, in file order; nil when the file is invalid
		wantWarns   int
		wantErrs    int
		check       func(t *testing.T, servers []Server)
	}{
		{file: "claude-desktop.json", wantServers: []string{"filesystem", "github"}, check: func(t *testing.T, s []Server) {
			if s[1].Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "ghp_exampletoken123" || s[0].Transport != TransportStdio {
				t.Errorf("github env or transport wrong: %+v", s)
			}
		}},
		{file: "claude-code.mcp.json", wantServers: []string{"api-server", "local-db", "events", "sentry"}, check: func(t *testing.T, s []Server) {
			if s[0].URL != "https://api.example.com/mcp" || s[0].Headers["Authorization"] != "Bearer k-1234567890" {
				t.Errorf("api-server: url %q headers %v", s[0].URL, s[0].Headers)
			}
			if s[1].CallTimeout != 120*time.Second || s[1].Args[1] != "/proj/db.json" {
				t.Errorf("local-db: timeout %s args %q", s[1].CallTimeout, s[1].Args)
			}
			if s[2].Enabled || s[2].Transport != TransportSSE {
				t.Errorf("events should be a disabled sse server: %+v", s[2])
			}
			if s[3].Transport != TransportHTTP {
				t.Errorf("streamable-http should read as http, got %q", s[3].Transport)
			}
		}},
		{file: "cursor.json", wantServers: []string{"web-search", "notes", "remote"}, check: func(t *testing.T, s []Server) {
			want := map[string]string{"API_KEY": "sk-search-abcdef", "REGION": "eu-west-1", "QUOTED": "single # not a comment", "PLAIN": "value"}
			for k, v := range want {
				if s[0].Env[k] != v {
					t.Errorf("web-search env %s = %q, want %q (env must win over envFile)", k, s[0].Env[k], v)
				}
			}
			if !slices.Equal(s[1].Args, []string{"/home/ada/mcp/notes.py", "/home/ada/notes"}) {
				t.Errorf("notes args = %q", s[1].Args)
			}
		}},
		{file: "vscode.json", wantServers: []string{"Perplexity", "fetch", "github"}, wantWarns: 1, check: func(t *testing.T, s []Server) {
			if !strings.Contains(s[0].NeedsInput, "${input:perplexity-key}") || !strings.Contains(s[0].NeedsInput, "Perplexity API Key") {
				t.Errorf("Perplexity NeedsInput = %q, want the input and its description", s[0].NeedsInput)
			}
			if s[1].NeedsInput != "" || s[1].Cwd != "/proj/tools" {
				t.Errorf("fetch: needsInput %q cwd %q", s[1].NeedsInput, s[1].Cwd)
			}
		}},
		{file: "mcpdeck-settings.json", wantServers: []string{"tuned", "quiet"}, check: func(t *testing.T, s []Server) {
			want := Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute}
			if s[0].Enabled || s[0].StartupTimeout != 10*time.Second || s[0].CallTimeout != 5*time.Second || s[0].PingInterval != 0 || s[0].AutoReconnect != want {
				t.Errorf("tuned settings wrong: %+v", s[0])
			}
			if s[1].Enabled || s[1].PingInterval != DefaultPingInterval || s[1].AutoReconnect.Enabled {
				t.Errorf("quiet settings wrong: %+v", s[1])
			}
		}},
		{file: "invalid-syntax.json", wantErrs: 1},
		{file: "invalid-types.json", wantErrs: 16},
		{file: "both-formats.json", wantErrs: 1},
	}
	abs := mustAbs(t, "testdata")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			servers, warns, err := Parse(path, data, ScopeExplicit, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(env)})
			var names []string
			for _, s := range servers {
				names = append(names, s.Name)
				if s.Source != path || s.Scope != ScopeExplicit || s.Pos.Line == 0 {
					t.Errorf("server %s: source %q scope %q pos %v", s.Name, s.Source, s.Scope, s.Pos)
				}
			}
			if !slices.Equal(names, tt.wantServers) {
				t.Errorf("servers = %q, want %q", names, tt.wantServers)
			}
			if len(warns) != tt.wantWarns {
				t.Errorf("got %d warnings, want %d: %v", len(warns), tt.wantWarns, warns)
			}
			var errs Errors
			if tt.wantErrs == 0 && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErrs > 0 {
				if !errors.As(err, &errs) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("error = %v, want Errors", err)
				}
				if len(errs) != tt.wantErrs {
					t.Errorf("got %d errors, want %d:\n%v", len(errs), tt.wantErrs, err)
				}
				for _, d := range errs {
					if d.Pos.File != path || d.Pos.Line == 0 || d.Pos.Column == 0 {
						t.Errorf("diagnostic without file:line:column: %v", d)
					}
				}
			}
			if tt.check != nil && len(servers) == len(tt.wantServers) {
				tt.check(t, servers)
			}
			golden.RequireEqual(namedTB{t, "golden/" + tt.file}, render(servers, warns, err, abs))
		})
	}
}

// TestParseDiagnostics pins the exact position, server, field and message
// of single problems written inline.
func TestParseDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      string // the one diagnostic, as String() prints it
		warning   bool
	}{
		{"top level array", `[]`, `f.json:1:1: the top level must be an object like {"mcpServers": {...}}, not an array`, false},
		{"servers not object", `{"servers": []}`, `f.json:1:13: field "servers": must be an object mapping server names to servers, not an array`, false},
		{"duplicate server", "{\"mcpServers\": {\n \"a\": {\"command\": \"x\"},\n \"a\": {\"command\": \"y\"}}}", `f.json:3:2: field "mcpServers.a": defined twice; remove one`, false},
		{"duplicate field", `{"mcpServers": {"a": {"command": "x", "command": "y"}}}`, `f.json:1:39: server "a": field "command": defined twice; remove one`, false},
		{"name too long", `{"mcpServers": {"` + strings.Repeat("n", 65) + `": {"command": "x"}}}`, `f.json:1:17: server "` + strings.Repeat("n", 65) + `": invalid server name: use 1 to 64 letters, digits, '_', '.' or '-'`, false},
		{"empty command", `{"mcpServers": {"a": {"command": ""}}}`, `f.json:1:34: server "a": field "command": is empty; name the program to run`, false},
		{"url without host", `{"mcpServers": {"a": {"url": "http:///mcp"}}}`, `f.json:1:30: server "a": field "url": "http:///mcp" has no host`, false},
		{"http with command", `{"mcpServers": {"a": {"type": "http", "command": "x"}}}`, `f.json:1:50: server "a": field "command": a http server connects to "url"; remove "command" or set "type" to "stdio"`, false},
		{"sse without url", `{"mcpServers": {"a": {"type": "sse"}}}`, `f.json:1:17: server "a": field "url": a sse server needs "url"`, false},
		{"enabled contradicts disabled", `{"mcpServers": {"a": {"command": "x", "enabled": true, "disabled": true}}}`, `f.json:1:68: server "a": field "disabled": contradicts "enabled"; keep one of them`, false},
		{"timeout alias twice", `{"mcpServers": {"a": {"command": "x", "timeout": 1, "callTimeout": 2}}}`, `f.json:1:68: server "a": field "callTimeout": is an alias of "timeout", which is also set; keep one`, false},
		{"backoff order", `{"mcpServers": {"a": {"command": "x", "autoReconnect": {"initialBackoff": "1m", "maxBackoff": "1s"}}}}`, `f.json:1:56: server "a": field "autoReconnect": initialBackoff (1m0s) is longer than maxBackoff (1s)`, false},
		{"maxAttempts fraction", `{"mcpServers": {"a": {"command": "x", "autoReconnect": {"maxAttempts": 1.5}}}}`, `f.json:1:72: server "a": field "autoReconnect.maxAttempts": must be a whole number of attempts (0 means the default, 5)`, false},
		{"huge timeout", `{"mcpServers": {"a": {"command": "x", "timeout": 1e300}}}`, `f.json:1:50: server "a": field "timeout": 1e300 is out of range; use a number of milliseconds or a duration such as "30s"`, false},
		{"disabledServers not array", `{"mcpServers": {}, "disabledServers": "a"}`, `f.json:1:39: field "disabledServers": must be an array of server names, not a string`, false},
		{"unicode column", "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"é\", 1]}}}", `f.json:1:53: server "a": field "args[1]": must be a string, not a number`, false},
		{"unterminated variable", `{"mcpServers": {"a": {"command": "${HOME"}}}`, `f.json:1:34: server "a": field "command": unterminated variable "${HOME": add the closing "}"`, false},
		{"unsupported variable", `{"mcpServers": {"a": {"command": "${config:x}"}}}`, `f.json:1:34: server "a": field "command": unsupported variable "${config:x}": mcpdeck expands ${VAR}, ${VAR:-default}, ${env:VAR}, ${workspaceFolder}, ${userHome} and ${input:id}`, false},
		{"comment inside", "{\n  // servers\n  \"mcpServers\": {\"a\": {\"command\": 1}},\n}", `f.json:3:35: server "a": field "command": must be a string, not a number`, false},
		{"unknown field", `{"mcpServers": {"a": {"command": "x", "autoApprove": []}}}`, `f.json:1:39: server "a": field "autoApprove": unknown field is ignored (another client's setting?)`, true},
		{"typo of a field", `{"mcpServers": {"a": {"command": "x", "arg": ["-v"]}}}`, `f.json:1:39: server "a": field "arg": unknown field is ignored (did you mean args?)`, true},
		{"typo of a reconnect field", `{"mcpServers": {"a": {"command": "x", "autoReconnect": {"maxAtempts": 3}}}}`, `f.json:1:57: server "a": field "autoReconnect.maxAtempts": unknown field is ignored (did you mean maxAttempts?)`, true},
		{"misspelt environment", `{"mcpServers": {"a": {"command": "x", "enviroment": {}}}}`, `f.json:1:39: server "a": field "enviroment": unknown field is ignored (did you mean env?)`, true},
		{"misspelt command", `{"mcpServers": {"a": {"comand": "x"}}}`, `f.json:1:17: server "a": neither "command" nor "url" is set: "comand" is no field mcpdeck reads: did you mean command?`, false},
		{"misspelt command of stdio", `{"servers": {"a": {"type": "stdio", "cmd": "x"}}}`, `f.json:1:14: server "a": field "command": a stdio server needs "command"; "cmd" is no field mcpdeck reads: did you mean command?`, false},
		{"misspelt url", `{"mcpServers": {"a": {"type": "http", "uri": "https://h"}}}`, `f.json:1:17: server "a": field "url": a http server needs "url"; "uri" is no field mcpdeck reads: did you mean url?`, false},
		{"Windsurf's serverUrl", `{"mcpServers": {"a": {"serverUrl": "https://h/mcp"}}}`, `f.json:1:17: server "a": neither "command" nor "url" is set: "serverUrl" is no field mcpdeck reads: did you mean url?`, false},
		{"empty argument", `{"mcpServers": {"a": {"command": "node", "args": ["-v", ""]}}}`, `f.json:1:57: server "a": field "args[1]": is empty; ` + EmptyArgument, true},
		{"argument of an empty variable", `{"mcpServers": {"a": {"command": "node", "args": ["${EMPTY}"]}}}`, `f.json:1:51: server "a": field "args[0]": is empty ("${EMPTY}" expanded to nothing); ` + EmptyArgument, true},
		{"unknown reconnect field", `{"mcpServers": {"a": {"command": "x", "autoReconnect": {"jitter": 3}}}}`, `f.json:1:57: server "a": field "autoReconnect.jitter": unknown field is ignored (known: enabled, maxAttempts, initialBackoff, maxBackoff)`, true},
		{"unknown top-level", `{"mcpServers": {}, "theme": 1}`, `f.json:1:20: unknown top-level field "theme" is ignored`, true},
		{"no servers", `{}`, `f.json:1:1: no "mcpServers" or "servers" object; this file defines no servers`, true},
		{"headers on stdio", `{"mcpServers": {"a": {"command": "x", "headers": {}}}}`, `f.json:1:50: server "a": field "headers": is ignored for stdio servers`, true},
		{"disabled unknown name", `{"mcpServers": {}, "disabledServers": ["zz"]}`, `f.json:1:40: field "disabledServers[0]": names "zz", which this file does not define`, true},
		{"undeclared input", `{"servers": {"a": {"url": "https://h/${input:tok}"}}}`, ``, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := Parse("f.json", []byte(tt.src), ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(map[string]string{"HOME": "/h", "EMPTY": ""})})
			var got []Diagnostic
			if tt.warning {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				got = warns
			} else {
				var errs Errors
				if !errors.As(err, &errs) {
					t.Fatalf("error = %v, want Errors", err)
				}
				got = errs
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].String() != tt.want {
				t.Fatalf("got %q\nwant [%q]", got, tt.want)
			}
		})
	}
}

func TestParseNeedsInputKeepsOtherServers(t *testing.T) {
	t.Parallel()
	src := `{"servers": {
		"a": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}},
		"b": {"command": "srv"}}}`
	servers, _, err := Parse("f.json", []byte(src), ScopeProject, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 {
		t.Fatalf("got %d servers, want 2", len(servers))
	}
	if want := `${input:tok} (not declared in "inputs")`; !strings.Contains(servers[0].NeedsInput, want) {
		t.Errorf("a.NeedsInput = %q, want it to contain %q", servers[0].NeedsInput, want)
	}
	if servers[1].NeedsInput != "" {
		t.Errorf("b.NeedsInput = %q, want empty", servers[1].NeedsInput)
	}
}

func TestParseRelativePathsByScope(t *testing.T) {
	t.Parallel()
	src := []byte(`{"mcpServers": {"a": {"command": "x", "cwd": "work"}}}`)
	for _, tt := range []struct {
		scope Scope
		want  string
	}{
		{ScopeProject, "/proj/work"},
		{ScopeUser, "/etc/mcpdeck/work"},
		{ScopeExplicit, "/etc/mcpdeck/work"},
	} {
		servers, _, err := Parse("/etc/mcpdeck/mcp.json", src, tt.scope, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if servers[0].Cwd != tt.want {
			t.Errorf("scope %s: cwd = %q, want %q", tt.scope, servers[0].Cwd, tt.want)
		}
	}
}

func TestParseRejectsNonRegularEnvFile(t *testing.T) {
	t.Parallel()
	src := []byte(`{"mcpServers": {"a": {"command": "x", "envFile": "/dev/zero"}}}`)
	_, _, err := Parse("f.json", src, ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error = %v, want a refusal to read a device", err)
	}
}

func TestParseEnvFileProblemsNameTheEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	envPath := filepath.Join(dir, "bad.env")
	if err := os.WriteFile(envPath, []byte("OK=1\nnot a pair\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"mcpServers": {"a": {"command": "x", "envFile": "bad.env"}}}`)
	_, _, err := Parse(filepath.Join(dir, "mcp.json"), src, ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
	want := envPath + `:2:1: server "a": field "envFile": line "not a pair" is not KEY=VALUE`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
}

// TestServersOutsideTheirObjectAreSaid: a file whose servers are not
// where mcpdeck reads them defines none, and "this file defines no
// servers" would not say why. The three ways people get there (a
// README's server snippet pasted without "mcpServers" around it, VS
// Code's settings.json shape, a misspelt "mcpServers") are each named, as
// a Loud warning every command shows; another unknown field stays quiet.
func TestServersOutsideTheirObjectAreSaid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src, want string
		loud            bool
	}{
		{"snippet without mcpServers", `{"github": {"command": "npx", "args": ["-y", "x"]}}`,
			`f.json:1:2: unknown top-level field "github" is ignored: it looks like a server (it has "command"), and servers go inside "mcpServers": {"mcpServers": {"github": {…}}}`, true},
		{"remote snippet without mcpServers", `{"linear": {"type": "http", "url": "https://h/mcp"}}`,
			`f.json:1:2: unknown top-level field "linear" is ignored: it looks like a server (it has "url"), and servers go inside "mcpServers": {"mcpServers": {"linear": {…}}}`, true},
		{"VS Code settings shape", `{"mcp": {"servers": {"a": {"command": "x"}}}}`,
			`f.json:1:2: unknown top-level field "mcp" is ignored: it holds "servers", which mcpdeck reads at the top level of the file: {"servers": {…}}`, true},
		{"misspelt mcpServers", `{"mcp_servers": {"a": {"command": "x"}}}`,
			`f.json:1:2: unknown top-level field "mcp_servers" is ignored (did you mean mcpServers?)`, true},
		{"other casing", `{"MCPServers": {"a": {"command": "x"}}}`,
			`f.json:1:2: unknown top-level field "MCPServers" is ignored (did you mean mcpServers?)`, true},
		{"unknown field beside the servers", `{"mcpServers": {}, "theme": {"command": "dark"}}`,
			`f.json:1:20: unknown top-level field "theme" is ignored: it looks like a server (it has "command"), and servers go inside "mcpServers": {"mcpServers": {"theme": {…}}}`, true},
		{"plain unknown field", `{"mcpServers": {}, "editor": {"theme": "dark"}}`,
			`f.json:1:20: unknown top-level field "editor" is ignored`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := Parse("f.json", []byte(tt.src), ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(warns) != 1 || warns[0].String() != tt.want || warns[0].Loud != tt.loud {
				t.Fatalf("got %q (loud %v)\nwant [%q] (loud %v)", warns, len(warns) == 1 && warns[0].Loud, tt.want, tt.loud)
			}
		})
	}
}

// TestCommandLineInCommandIsSaid: "command" holding a whole command line,
// as a shell or another tool's README runs it, names a program that does
// not exist (mcpdeck runs no shell), and the start fails with "command
// not found". The load says why and gives the fields that run it; a path
// with a space in it is a program, and is left alone.
func TestCommandLineInCommandIsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe, spaced := filepath.Join(dir, "node"), filepath.Join(dir, "my server")
	for _, f := range []string{exe, spaced} {
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ name, src, want string }{
		{"npx line", `{"mcpServers": {"a": {"command": "npx -y @modelcontextprotocol/server-everything"}}}`,
			`f.json:1:34: server "a": field "command": holds a whole command line, and mcpdeck runs no shell, so it looks for a program named "npx -y @modelcontextprotocol/server-everything": put the program in "command" and the rest in "args": "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]`},
		{"line and args", `{"mcpServers": {"a": {"command": "uvx --from x", "args": ["srv", "--port=1&2"]}}}`,
			`f.json:1:34: server "a": field "command": holds a whole command line, and mcpdeck runs no shell, so it looks for a program named "uvx --from x": put the program in "command" and the rest in "args": "command": "uvx", "args": ["--from", "x", "srv", "--port=1&2"]`},
		{"quoted line", `{"mcpServers": {"a": {"command": "python -c 'import srv'"}}}`,
			`f.json:1:34: server "a": field "command": holds a whole command line, and mcpdeck runs no shell, so it looks for a program named "python -c 'import srv'": put the program in "command" and the rest in "args": one word each`},
		{"path with a space", `{"mcpServers": {"a": {"command": "/Applications/My Server.app/server"}}}`, ``},
		{"program's path and its arguments", `{"mcpServers": {"a": {"command": "` + exe + ` server.js --stdio"}}}`,
			`f.json:1:34: server "a": field "command": holds a whole command line, and mcpdeck runs no shell, so it looks for a program named "` + exe + ` server.js --stdio": put the program in "command" and the rest in "args": "command": "` + exe + `", "args": ["server.js", "--stdio"]`},
		{"path to a file with a space in its name", `{"mcpServers": {"a": {"command": "` + spaced + `"}}}`, ``},
		{"Windows path with a space", `{"mcpServers": {"a": {"command": "C:\\Program Files\\srv.exe"}}}`, ``},
		{"program", `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x"]}}}`, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := Parse("f.json", []byte(tt.src), ScopeUser, LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(nil)})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.want == "" {
				if len(warns) != 0 {
					t.Fatalf("got %q, want none", warns)
				}
				return
			}
			if len(warns) != 1 || warns[0].String() != tt.want || !warns[0].Loud {
				t.Fatalf("got %q\nwant [%q], Loud", warns, tt.want)
			}
		})
	}
}
