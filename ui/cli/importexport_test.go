package cli

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailscale/hujson"

	"mcpdeck/config"
)

// userFile is the world's mcpdeck/mcp.json.
func (w configWorld) userFile() string { return filepath.Join(w.userDir, "mcp.json") }

func (w configWorld) home() string { return filepath.Join(w.root, "home") }

// import reads each client's file in its own spelling into mcpdeck's: a
// VS Code input becomes an environment reference, Windsurf's serverUrl a
// url, a plain-text secret a reference (unless --secret-as value); names
// already there are skipped and named unless --replace.
func TestImport(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, filepath.Join(w.home(), ".cursor", "mcp.json"), string(clientFixture(t, "cursor-mcp.json")))
	w.write(t, filepath.Join(w.project, ".vscode", "mcp.json"), string(clientFixture(t, "vscode-mcp.json")))
	w.write(t, filepath.Join(w.home(), ".codeium", "windsurf", "mcp_config.json"), string(clientFixture(t, "windsurf-mcp_config.json")))
	w.write(t, filepath.Join(w.root, "xdg-config", "Claude", "claude_desktop_config.json"), string(clientFixture(t, "claude_desktop_config.json")))
	local := `{"projects": {` + mustJSON(t, w.project) + `: {"mcpServers": {"db": {"type": "stdio", "command": "/usr/local/bin/db-mcp", "args": ["--read-only"], "env": {}}}}}}`
	w.write(t, filepath.Join(w.home(), ".claude.json"), local)

	code, stdout, stderr := w.run(t, "import", "--from", "cursor")
	if code != ExitOK || !strings.Contains(stdout, `imported "web-search", "userjot" from `) {
		t.Fatalf("cursor: %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = w.run(t, "import", "--from", "vscode:project", "Perplexity", "fetch")
	if code != ExitOK || !strings.Contains(stderr, `left out "dev"`) {
		t.Fatalf("vscode: %d %s", code, stderr)
	}
	code, _, stderr = w.run(t, "import", "--from", "windsurf", "github")
	if code != ExitOK {
		t.Fatalf("windsurf: %d %s", code, stderr)
	}
	code, _, stderr = w.run(t, "import", "--from", "claude-code:local")
	if code != ExitOK {
		t.Fatalf("claude-code local: %d %s", code, stderr)
	}
	code, _, stderr = w.run(t, "import", "--from", "claude-desktop", "--secret-as", "env")
	if code != ExitOK || strings.Contains(stderr, "ghp_") {
		t.Fatalf("claude-desktop: %d %s", code, stderr)
	}
	env := map[string]string{"SEARCH_API_KEY": "k1", "USERJOT_API_TOKEN": "k2", "PERPLEXITY_KEY": "k3", "GITHUB_PAT": "k4", "GITHUB_PERSONAL_ACCESS_TOKEN": "k5"}
	cfg := loadFile(t, w.userFile(), env)
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"Perplexity", "db", "fetch", "filesystem", "github", "userjot", "web-search"}) {
		t.Fatalf("imported: %v", names)
	}
	p, _ := cfg.Server("Perplexity")
	gh, _ := cfg.Server("github")
	db, _ := cfg.Server("db")
	if p.Env["PERPLEXITY_API_KEY"] != "k3" || gh.URL != "https://api.githubcopilot.com/mcp/" || gh.Headers["Authorization"] != "Bearer k4" || !slices.Equal(db.Args, []string{"--read-only"}) {
		t.Errorf("Perplexity %v, github %s %v, db %v", p.Env, gh.URL, gh.Headers, db.Args)
	}
	if data := readFile(t, w.userFile()); bytes.Contains(data, []byte("ghp_exampleTokenNotReal")) {
		t.Errorf("Claude Desktop's plain-text token was copied:\n%s", data)
	}
	// The second import of the same servers is refused by name.
	code, _, stderr = w.run(t, "import", "--from", "cursor")
	if code != ExitUsage || !strings.Contains(stderr, `server "web-search": skipped: `+w.userFile()+" already defines it") || !strings.Contains(stderr, "nothing to import: every server was skipped") {
		t.Errorf("a conflict: %d %s", code, stderr)
	}
	if code, _, stderr = w.run(t, "import", "--from", "cursor", "--replace"); code != ExitOK {
		t.Errorf("--replace: %d %s", code, stderr)
	}
	for _, args := range [][]string{{"import"}, {"import", "--from", "zed"}, {"import", "--from", "cursor", "nope"}, {"import", "--from", "claude-code"}} {
		if code, _, stderr := w.run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: %d %q", args, code, stderr)
		}
	}
}

// export writes mcpdeck's servers in each client's spelling into its
// file, keeping everything else of that file; Claude Desktop takes only
// local commands.
func TestExport(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, w.userFile(), `{"mcpServers": {
  "demo": {"command": "mcpdeck", "args": ["demo-server"], "env": {"TOKEN": "${env:DEMO_TOKEN}"}, "pingInterval": "off"},
  "tracker": {"type": "http", "url": "https://mcp.sentry.dev/mcp", "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"}}
}}`)
	claude := w.write(t, filepath.Join(w.home(), ".claude.json"), string(clientFixture(t, "claude.json")))
	original := clientFixture(t, "claude.json")

	code, stdout, stderr := w.run(t, "export", "--to", "claude-code")
	if code != ExitOK || !strings.Contains(stdout, `exported "demo", "tracker" into `+claude) || !strings.Contains(stderr, `left out "pingInterval"`) {
		t.Fatalf("claude-code: %d\n%s%s", code, stdout, stderr)
	}
	got := readFile(t, claude)
	keptOutside(t, original, got, "/mcpServers")
	e, _ := docEntry(t, claude, "demo")
	if mustJSON(t, e) != `{"type":"stdio","command":"mcpdeck","args":["demo-server"],"env":{"TOKEN":"${DEMO_TOKEN}"}}` {
		t.Errorf("demo in Claude Code's spelling: %s", mustJSON(t, e))
	}
	// Claude Code's local scope is the project's section of ~/.claude.json.
	code, _, stderr = w.run(t, "export", "--to", "claude-code", "--scope", "local", "tracker")
	if code != ExitOK {
		t.Fatalf("claude-code local: %d %s", code, stderr)
	}
	root, _ := hujson.Parse(readFile(t, claude))
	if root.Find("/projects/"+config.PointerToken(w.project)+"/mcpServers/tracker") == nil {
		t.Errorf("tracker is not in the project's section:\n%s", readFile(t, claude))
	}

	code, _, stderr = w.run(t, "export", "--to", "windsurf")
	if code != ExitOK {
		t.Fatalf("windsurf: %d %s", code, stderr)
	}
	e, _ = docEntry(t, filepath.Join(w.home(), ".codeium", "windsurf", "mcp_config.json"), "tracker")
	if mustJSON(t, e) != `{"serverUrl":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer ${env:SENTRY_TOKEN}"}}` {
		t.Errorf("tracker in Windsurf's spelling: %s", mustJSON(t, e))
	}
	code, _, stderr = w.run(t, "export", "--to", "claude-desktop")
	desktop := filepath.Join(w.root, "xdg-config", "Claude", "claude_desktop_config.json")
	if code != ExitOK || !strings.Contains(stderr, `skipped server "tracker" is a remote server`) || !strings.Contains(stderr, "--gateway") {
		t.Fatalf("claude-desktop: %d %s", code, stderr)
	}
	if d, _ := config.OpenDocument(desktop, config.DocOptions{}); !slices.Equal(d.Names(), []string{"demo"}) {
		t.Errorf("Claude Desktop's file: %s", readFile(t, desktop))
	}
	if code, _, stderr = w.run(t, "export", "--to", "claude-code"); code != ExitUsage || !strings.Contains(stderr, "--replace") {
		t.Errorf("exporting again: %d %s", code, stderr)
	}
	for _, args := range [][]string{{"export"}, {"export", "--to", "zed"}, {"export", "--to", "windsurf", "--scope", "project"}, {"export", "--to", "cursor", "nope"}} {
		if code, _, stderr := w.run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: %d %q", args, code, stderr)
		}
	}
}

// clientEntry reads one server of a client's file as the client would
// run it.
func clientEntry(t *testing.T, path, ptr string) config.Entry {
	t.Helper()
	root, err := hujson.Parse(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	v := root.Find(ptr)
	if v == nil {
		t.Fatalf("no %s in %s:\n%s", ptr, path, readFile(t, path))
	}
	v.Standardize()
	e, err := config.ParseEntry(v.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// export --gateway writes the one entry Claude Code and VS Code need to
// use mcpdeck's gateway over stdio; run as the client runs it, it lists
// and calls the gateway's tools through the Go SDK client.
func TestExportGatewayStdioRuns(t *testing.T) {
	w := newConfigWorld(t)
	cfg, mark := gatewayPeerConfig(t)
	bin := mcpdeckBin(t)
	for _, tc := range []struct{ client, file, ptr string }{
		{"claude-code", ".mcp.json", "/mcpServers/mcpdeck"},
		{"vscode", filepath.Join(".vscode", "mcp.json"), "/servers/mcpdeck"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			code, stdout, stderr := w.run(t, "--config", cfg, "export", "--to", tc.client, "--scope", "project", "--gateway", "--command", bin)
			if code != ExitOK || !strings.Contains(stdout, `runs mcpdeck's gateway as "mcpdeck"`) {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			e := clientEntry(t, filepath.Join(w.project, tc.file), tc.ptr)
			typ, _ := e.String("type")
			command, _ := e.String("command")
			args, _ := e.Strings("args")
			if typ != "stdio" || command != bin || !slices.Equal(args, []string{"--config", cfg, "gateway"}) {
				t.Fatalf("the entry: %s", mustJSON(t, e))
			}
			elicited := make(chan string, 4)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			run := exec.Command(command, args...)
			run.Dir = w.project // where the client runs it: its project file must not matter
			cs, err := gatewayClient(elicited).Connect(ctx, &mcp.CommandTransport{Command: run}, nil)
			if err != nil {
				t.Fatalf("connecting the way %s would: %v", tc.client, err)
			}
			useGateway(t, cs, elicited)
			cs.Close()
		})
	}
	noProcessMarked(t, mark)
	// Without mcpdeck's own file there is nothing to point the gateway at.
	if code, _, stderr := w.run(t, "export", "--to", "cursor", "--gateway", "--command", bin); code != ExitUsage || !strings.Contains(stderr, "no configuration of its own") {
		t.Errorf("no file of its own: %d %s", code, stderr)
	}
}

// Over HTTP, VS Code's entry asks for the token once (an input) and sends
// it as a bearer token; resolved as VS Code resolves it, it reaches the
// gateway's tools. Claude Desktop's file takes no HTTP entry.
func TestExportGatewayHTTPRuns(t *testing.T) {
	w := newConfigWorld(t)
	cfg, mark := gatewayPeerConfig(t)
	const token = "gw-token-0123456789abcdef"
	url, stop := startHTTPGateway(t, cfg, token)
	defer stop()
	code, _, stderr := w.run(t, "export", "--to", "vscode", "--scope", "project", "--gateway", "--http", url)
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	path := filepath.Join(w.project, ".vscode", "mcp.json")
	e := clientEntry(t, path, "/servers/mcpdeck")
	if mustJSON(t, e) != `{"type":"http","url":"`+url+`","headers":{"Authorization":"Bearer ${input:mcpdeck-token}"}}` {
		t.Fatalf("the entry: %s", mustJSON(t, e))
	}
	d, _ := config.OpenDocument(path, config.DocOptions{})
	if !slices.Equal(d.InputIDs(), []string{"mcpdeck-token"}) || bytes.Contains(readFile(t, path), []byte(token)) {
		t.Fatalf("inputs %v\n%s", d.InputIDs(), readFile(t, path))
	}
	headers, _ := e.Map("headers")
	auth, _ := headers.Get("Authorization")
	auth = strings.ReplaceAll(auth, "${input:mcpdeck-token}", token) // what VS Code does with the answer
	u, _ := e.String("url")
	elicited := make(chan string, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: u, MaxRetries: -1, HTTPClient: &http.Client{Transport: headerRT{"Authorization", auth}}}
	cs, err := gatewayClient(elicited).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting the way VS Code would: %v", err)
	}
	useGateway(t, cs, elicited)
	cs.Close()
	stop()
	noProcessMarked(t, mark)
	if code, _, stderr := w.run(t, "export", "--to", "claude-desktop", "--gateway", "--http", url); code != ExitUsage || !strings.Contains(stderr, "leave out --http") {
		t.Errorf("Claude Desktop over HTTP: %d %s", code, stderr)
	}
}

// headerRT sets one header on every request.
type headerRT struct{ name, value string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// startHTTPGateway runs mcpdeck gateway --http on cfg with token and
// returns its URL and a stop that ends it and waits.
func startHTTPGateway(t *testing.T, cfg, token string) (string, func()) {
	t.Helper()
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway", "--http", "127.0.0.1:0")
	cmd.Env = testEnv(t, "MCPDECK_GATEWAY_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "mcpdeck gateway: serving MCP (Streamable HTTP) at "); ok {
				urls <- u
			}
		}
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		<-drained
		_ = cmd.Wait()
	}
	select {
	case u := <-urls:
		return u, stop
	case <-time.After(30 * time.Second):
		stop()
		t.Fatal("the gateway did not say where it listens")
	}
	return "", stop
}

// The entry export --gateway writes is mcpdeck itself: importing every
// server of that client's file skips it and says so, and naming it is
// refused, for the stdio entry and the HTTP one alike (found by qa: the
// gateway's own entry was copied into mcpdeck's file).
func TestImportSkipsMcpdecksOwnGateway(t *testing.T) {
	w := newConfigWorld(t)
	proj := filepath.Join(w.project, ".mcp.json")
	w.write(t, proj, `{"mcpServers": {"db": {"type": "stdio", "command": "/usr/local/bin/db-mcp"}}}`)
	gw := filepath.Join(w.root, "gateway.json")
	w.write(t, gw, `{"mcpServers": {"demo": {"command": "mcpdeck", "args": ["demo-server"]}}}`)
	if code, _, stderr := w.run(t, "--config", gw, "export", "--to", "claude-code", "--scope", "project", "--gateway", "--command", "/opt/bin/mcpdeck"); code != ExitOK {
		t.Fatalf("export --gateway: %d %s", code, stderr)
	}
	if code, _, stderr := w.run(t, "--config", gw, "export", "--to", "claude-code", "--scope", "project", "--gateway", "--name", "team", "--http", "http://127.0.0.1:8765/mcp"); code != ExitOK {
		t.Fatalf("export --gateway --http: %d %s", code, stderr)
	}
	code, stdout, stderr := w.run(t, "import", "--from", "claude-code:project")
	if code != ExitOK || !strings.Contains(stdout, `imported "db"`) {
		t.Fatalf("import: %d\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"mcpdeck", "team"} {
		if !strings.Contains(stderr, `server "`+name+`": skipped: it is mcpdeck's own gateway`) {
			t.Errorf("no word of skipping %s:\n%s", name, stderr)
		}
	}
	cfg := loadFile(t, w.userFile(), nil)
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "db" {
		t.Fatalf("imported %+v", cfg.Servers)
	}
	if code, _, stderr := w.run(t, "import", "--from", "claude-code:project", "mcpdeck"); code != ExitUsage || !strings.Contains(stderr, "mcpdeck cannot serve itself") {
		t.Errorf("naming the gateway: %d %s", code, stderr)
	}
}

// TestExportSkipsDisabledServers: a server switched off in mcpdeck is not
// exported, unasked, to a client that cannot write it switched off (all
// but Windsurf read no "disabled"): it would run there. Named, it goes,
// with the notice that "disabled" was left out.
func TestExportSkipsDisabledServers(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, w.userFile(), `{"mcpServers": {
  "on": {"command": "mcpdeck", "args": ["demo-server"]},
  "off": {"command": "python", "args": ["old.py"], "disabled": true}
}}`)
	code, stdout, stderr := w.run(t, "export", "--to", "claude-code", "--scope", "project")
	if code != ExitOK || !strings.Contains(stdout, `exported "on" into`) || !strings.Contains(stderr, `server "off": skipped: it is disabled`) {
		t.Fatalf("export of all: %d\n%s%s", code, stdout, stderr)
	}
	if _, ok := docEntry(t, filepath.Join(w.project, ".mcp.json"), "off"); ok {
		t.Errorf("the disabled server was exported, to run in Claude Code:\n%s", readFile(t, filepath.Join(w.project, ".mcp.json")))
	}
	code, stdout, stderr = w.run(t, "export", "--to", "claude-code", "--scope", "project", "off")
	if code != ExitOK || !strings.Contains(stdout, `exported "off" into`) || !strings.Contains(stderr, `left out "disabled"`) {
		t.Fatalf("export of the named disabled server: %d\n%s%s", code, stdout, stderr)
	}
}

// TestExportToWindsurfKeepsServersOff: Windsurf reads "disabled", so a
// server that is off in mcpdeck, however its file says it
// ("disabledServers", "enabled": false, "disabled": true), goes over
// switched off, never to run there.
func TestExportToWindsurfKeepsServersOff(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, w.userFile(), `{"mcpServers": {
  "on": {"command": "mcpdeck", "args": ["demo-server"]},
  "listed": {"command": "python", "args": ["a.py"]},
  "flag": {"command": "python", "args": ["b.py"], "enabled": false},
  "off": {"command": "python", "args": ["c.py"], "disabled": true}
}, "disabledServers": ["listed"]}`)
	code, stdout, stderr := w.run(t, "export", "--to", "windsurf")
	if code != ExitOK {
		t.Fatalf("export: %d\n%s%s", code, stdout, stderr)
	}
	file := filepath.Join(w.home(), ".codeium", "windsurf", "mcp_config.json")
	for name, want := range map[string]string{
		"on":     `{"command":"mcpdeck","args":["demo-server"]}`,
		"listed": `{"command":"python","args":["a.py"],"disabled":true}`,
		"flag":   `{"command":"python","args":["b.py"],"disabled":true}`,
		"off":    `{"command":"python","args":["c.py"],"disabled":true}`,
	} {
		if e, _ := docEntry(t, file, name); mustJSON(t, e) != want {
			t.Errorf("%s in Windsurf's file: %s, want %s", name, mustJSON(t, e), want)
		}
	}
}

// TestImportFromCursorSkipsOnlyTheServerThatCannotBeRead: one server of
// Cursor's file that mcpdeck cannot take (an envFile that does not exist)
// is left out, named with Cursor's file and the reason; the others are
// imported. ${workspaceFolder} keeps Cursor's meaning, the project folder:
// in mcpdeck the project it runs in, so an envFile under it is written as
// it is and read from the project when mcpdeck runs there.
func TestImportFromCursorSkipsOnlyTheServerThatCannotBeRead(t *testing.T) {
	w := newConfigWorld(t)
	cursor := w.write(t, filepath.Join(w.home(), ".cursor", "mcp.json"), `{"mcpServers": {
  "good": {"command": "npx", "args": ["-y", "some-server"]},
  "withenv": {"command": "node", "args": ["s.js"], "envFile": "${workspaceFolder}/.env"},
  "broken": {"command": "node", "args": ["t.js"], "envFile": "/nonexistent/x.env"}
}}`)
	code, stdout, stderr := w.run(t, "import", "--from", "cursor")
	if code != ExitOK || !strings.Contains(stdout, `imported "good", "withenv" from `+cursor) {
		t.Fatalf("import: %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`server "broken": not imported from ` + cursor + `: field "envFile": cannot read /nonexistent/x.env`,
		`server "withenv": envFile: ${workspaceFolder} is kept: mcpdeck reads it as the project it runs in`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, w.userFile()) {
		t.Errorf("the notices name mcpdeck's file, not Cursor's:\n%s", stderr)
	}
	// Said once: the entry read from Cursor's file, not again when the
	// converted entry is written into mcpdeck's.
	if n := strings.Count(stderr, "envFile: ${workspaceFolder} is kept"); n != 1 {
		t.Errorf("the ${workspaceFolder} notice is printed %d times, want once:\n%s", n, stderr)
	}
	if e, _ := docEntry(t, w.userFile(), "withenv"); mustJSON(t, e) != `{"command":"node","args":["s.js"],"envFile":"${workspaceFolder}/.env"}` {
		t.Errorf("withenv in mcpdeck's file: %s", mustJSON(t, e))
	}
	// Run in the project, the envFile is the project's.
	w.write(t, filepath.Join(w.project, ".env"), "FROM_ENV_FILE=1\n")
	code, stdout, stderr = w.run(t, "config", "show", "--json")
	if code != ExitOK || !strings.Contains(stdout, `"envFile": "`+filepath.Join(w.project, ".env")+`"`) {
		t.Errorf("config show in the project: %d\n%s%s", code, stdout, stderr)
	}
	// Exported to VS Code, which means by it what Cursor does, nothing
	// about how mcpdeck reads it is said: mcpdeck reads none of it there.
	code, stdout, stderr = w.run(t, "export", "--to", "vscode", "withenv")
	if code != ExitOK {
		t.Fatalf("export: %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "mcpdeck reads it as the project") {
		t.Errorf("export to VS Code speaks of how mcpdeck reads ${workspaceFolder}:\n%s", stderr)
	}
}
