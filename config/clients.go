package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Client is another MCP client whose configuration files mcpdeck reads and
// writes (import, export): where each scope's file is and how its entries
// are spelled. The table is Clients; the README cites each row from the
// client's own documentation.
type Client struct {
	ID   string // as the command line names it: "claude-code"
	Name string // as people name it: "Claude Code"
	Docs string // the client's documentation of the format
	// Key is the servers object's name in the client's files.
	Key string
	// Scopes are the files the client reads, the default first.
	Scopes []ClientScope
	// Fields are the server fields the client reads; others are left out
	// when exporting to it.
	Fields []string
	// TypeStdio and TypeRemote: the client wants "type" written for stdio
	// and for remote servers.
	TypeStdio, TypeRemote bool
	// URLField is the name of a remote server's URL ("url"; Windsurf
	// also reads "serverUrl").
	URLField string
	// Remote: the client's file can hold remote servers (Claude Desktop's
	// runs local commands only).
	Remote bool
	// Vars is how the client writes a reference to an environment
	// variable.
	Vars VarSyntax
	// Inputs: the client prompts for ${input:id} declared in "inputs".
	Inputs bool
}

// ClientScope is one of a client's files.
type ClientScope struct {
	Name string // "user", "project" or "local"
	// file is the file's path; container the JSON pointer of the object
	// holding the servers object in it ("" for the top level).
	file      func(PathEnv) string
	container func(PathEnv) string
}

// VarSyntax is how a client spells an environment variable in a value.
type VarSyntax int

// The syntaxes.
const (
	VarsNone     VarSyntax = iota // no expansion: a value is taken as written
	VarsDollar                    // ${NAME} and ${NAME:-default} (Claude Code)
	VarsEnvColon                  // ${env:NAME} (VS Code, Cursor, Windsurf)
	VarsMcpdeck                   // everything mcpdeck expands (config/doc.go)
)

// PathEnv is what clients' file locations depend on; PathEnvFromOS fills
// it from the running system.
type PathEnv struct {
	GOOS          string // runtime.GOOS
	Home          string
	ProjectDir    string // absolute
	AppData       string // %APPDATA% on Windows
	XDGConfigHome string // $XDG_CONFIG_HOME, or ~/.config
}

// Where the other clients' files are, from their documentation (see the
// README's table).
func homeFile(parts ...string) func(PathEnv) string {
	return func(e PathEnv) string { return filepath.Join(append([]string{e.Home}, parts...)...) }
}

func projectFile(parts ...string) func(PathEnv) string {
	return func(e PathEnv) string { return filepath.Join(append([]string{e.ProjectDir}, parts...)...) }
}

// appConfig is an application's per-user configuration directory: macOS
// ~/Library/Application Support/APP, Windows %APPDATA%\APP, elsewhere
// $XDG_CONFIG_HOME/APP.
func appConfig(app string, parts ...string) func(PathEnv) string {
	return func(e PathEnv) string {
		var base string
		switch e.GOOS {
		case "darwin":
			base = filepath.Join(e.Home, "Library", "Application Support")
		case "windows":
			base = e.AppData
		default:
			base = e.XDGConfigHome
		}
		return filepath.Join(append([]string{base, app}, parts...)...)
	}
}

var (
	stdioFields  = []string{"command", "args", "env"}
	remoteFields = []string{"url", "headers"}
)

// Clients is the table of clients mcpdeck imports from and exports to.
var Clients = []Client{
	{
		ID: "claude-desktop", Name: "Claude Desktop", Docs: "https://modelcontextprotocol.io/docs/develop/connect-local-servers",
		Key: "mcpServers", Fields: stdioFields, URLField: "url", Vars: VarsNone,
		Scopes: []ClientScope{{Name: "user", file: appConfig("Claude", "claude_desktop_config.json")}},
	},
	{
		ID: "claude-code", Name: "Claude Code", Docs: "https://code.claude.com/docs/en/mcp",
		Key: "mcpServers", Fields: slices.Concat([]string{"type"}, stdioFields, remoteFields, []string{"oauth"}),
		TypeStdio: true, TypeRemote: true, URLField: "url", Remote: true, Vars: VarsDollar,
		Scopes: []ClientScope{
			{Name: "user", file: homeFile(".claude.json")},
			{Name: "project", file: projectFile(".mcp.json")},
			{Name: "local", file: homeFile(".claude.json"), container: func(e PathEnv) string { return "/projects/" + pointerToken(e.ProjectDir) }},
		},
	},
	{
		ID: "cursor", Name: "Cursor", Docs: "https://cursor.com/docs/context/mcp",
		Key: "mcpServers", Fields: slices.Concat([]string{"type"}, stdioFields, []string{"envFile"}, remoteFields, []string{"auth"}),
		URLField: "url", Remote: true, Vars: VarsEnvColon,
		Scopes: []ClientScope{
			{Name: "user", file: homeFile(".cursor", "mcp.json")},
			{Name: "project", file: projectFile(".cursor", "mcp.json")},
		},
	},
	{
		ID: "vscode", Name: "VS Code", Docs: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
		Key: "servers", Fields: slices.Concat([]string{"type"}, stdioFields, []string{"envFile", "cwd"}, remoteFields),
		TypeStdio: true, TypeRemote: true, URLField: "url", Remote: true, Vars: VarsEnvColon, Inputs: true,
		Scopes: []ClientScope{
			{Name: "user", file: appConfig("Code", "User", "mcp.json")},
			{Name: "project", file: projectFile(".vscode", "mcp.json")},
		},
	},
	{
		ID: "windsurf", Name: "Windsurf", Docs: "https://docs.windsurf.com/windsurf/cascade/mcp",
		Key: "mcpServers", Fields: slices.Concat(stdioFields, []string{"serverUrl", "headers", "disabled"}),
		URLField: "serverUrl", Remote: true, Vars: VarsEnvColon,
		Scopes: []ClientScope{{Name: "user", file: homeFile(".codeium", "windsurf", "mcp_config.json")}},
	},
}

// Mcpdeck is mcpdeck's own format: what Load reads. Entries are converted
// to it on import and from it on export.
var Mcpdeck = Client{
	ID: "mcpdeck", Name: "mcpdeck", Key: "mcpServers", URLField: "url", Remote: true, Vars: VarsMcpdeck,
	Fields: append(slices.Clone(serverFields), "type"),
}

// ErrUnknownClient: a client name that is not in Clients.
var ErrUnknownClient = errors.New("unknown client")

// ClientByID returns the client called id.
func ClientByID(id string) (Client, error) {
	for _, c := range Clients {
		if c.ID == id {
			return c, nil
		}
	}
	ids := make([]string, len(Clients))
	for i, c := range Clients {
		ids[i] = c.ID
	}
	return Client{}, fmt.Errorf("%w %q: use one of %s, or a file path", ErrUnknownClient, id, strings.Join(ids, ", "))
}

// ScopeNames are the client's scopes, the default first.
func (c Client) ScopeNames() []string {
	out := make([]string, len(c.Scopes))
	for i, s := range c.Scopes {
		out[i] = s.Name
	}
	return out
}

// Location is the file of the client's scope ("" for the default) and how
// to open it.
func (c Client) Location(scope string, env PathEnv) (string, DocOptions, error) {
	if scope == "" {
		scope = c.Scopes[0].Name
	}
	for _, s := range c.Scopes {
		if s.Name != scope {
			continue
		}
		o := DocOptions{Key: c.Key, Normalize: c.ToMcpdeck}
		if s.container != nil {
			o.Container = s.container(env)
		}
		if scope == "project" {
			o.Mode = 0o644 // shared with the project, as the client writes it
		}
		return s.file(env), o, nil
	}
	return "", DocOptions{}, fmt.Errorf("%s has no %q scope; its scopes are %s", c.Name, scope, strings.Join(c.ScopeNames(), ", "))
}

// ClientOfFile guesses whose format a file is in from its name and servers
// key, so an edit writes what its client reads: "servers" is VS Code's;
// .mcp.json and .claude.json are Claude Code's; a file under .cursor is
// Cursor's; mcp_config.json Windsurf's; claude_desktop_config.json Claude
// Desktop's; anything else is mcpdeck's own.
func ClientOfFile(path, key string) Client {
	id := ""
	switch base := filepath.Base(path); {
	case key == "servers":
		id = "vscode"
	case base == ".mcp.json" || base == ".claude.json":
		id = "claude-code"
	case filepath.Base(filepath.Dir(path)) == ".cursor":
		id = "cursor"
	case base == "mcp_config.json":
		id = "windsurf"
	case base == "claude_desktop_config.json":
		id = "claude-desktop"
	}
	if c, err := ClientByID(id); err == nil {
		return c
	}
	return Mcpdeck
}
