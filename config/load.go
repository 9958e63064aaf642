package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ProjectFiles are the project-scope file names, relative to the project
// directory, in precedence order (earlier wins a name clash).
var ProjectFiles = []string{".mcp.json", "mcp.json", filepath.Join(".vscode", "mcp.json"), filepath.Join(".cursor", "mcp.json")}

// File is one configuration file that was read.
type File struct {
	Path  string
	Scope Scope
	Hash  string // sha256 of the content, hex; approvals are tied to it
	// Unapproved is set for a project file whose content was not approved
	// (LoadOptions.Approved) when it was read: its servers are Unapproved.
	Unapproved bool
	// Servers are the names this file defines, in file order, including
	// those shadowed by a nearer file.
	Servers []string
}

// Shadowed is a server definition that lost a name clash to a nearer one.
type Shadowed struct {
	Name        string
	Server      Server // the losing definition (its Source, Scope, Pos)
	Winner      string // Source of the definition in effect
	WinnerScope Scope
}

// Config is the resolved configuration.
type Config struct {
	Servers  []Server     // in effect, sorted by name
	Files    []File       // every file read, in discovery order
	Warnings []Diagnostic // unknown fields and other harmless oddities
	Shadowed []Shadowed   // losing definitions, sorted by name
	// Gateway is the "gateway" block of the nearest file that has one
	// (the same precedence as servers); nil when none has.
	Gateway *Gateway
	// Alerts is the "alerts" block of the nearest file that has one; nil
	// when none has (mcpdeck monitor then applies its default rules).
	Alerts *Alerts
}

// Server returns the server called name.
func (c *Config) Server(name string) (Server, bool) {
	i, found := slices.BinarySearchFunc(c.Servers, name, func(s Server, n string) int { return strings.Compare(s.Name, n) })
	if !found {
		return Server{}, false
	}
	return c.Servers[i], true
}

// Loud returns the warnings about s that likely keep it from working as
// meant (Diagnostic.Loud: a misspelt field, an empty argument), which
// every face that uses s shows: the commands on stderr, the terminal UI
// in the server's Overview.
func (c *Config) Loud(s Server) []Diagnostic {
	var out []Diagnostic
	for _, d := range c.Warnings {
		if d.Loud && d.Server == s.Name && d.Pos.File == s.Source {
			out = append(out, d)
		}
	}
	return out
}

// LoudFile returns the warnings about a file as a whole that likely keep
// its servers from running (Diagnostic.Loud: servers written outside
// "mcpServers", a misspelt "mcpServers"), which every command says, as it
// says a server's (Loud).
func (c *Config) LoudFile() []Diagnostic {
	var out []Diagnostic
	for _, d := range c.Warnings {
		if d.Loud && d.Server == "" {
			out = append(out, d)
		}
	}
	return out
}

// File returns the file read from path.
func (c *Config) File(path string) (File, bool) {
	i := slices.IndexFunc(c.Files, func(f File) bool { return f.Path == path })
	if i < 0 {
		return File{}, false
	}
	return c.Files[i], true
}

// Unapproved returns the project files that define servers and were read
// without approval: ask the user about these, record the approval, then
// Load again, since only an approved file's envFile is read.
func (c *Config) Unapproved() []File {
	var out []File
	for _, f := range c.Files {
		if f.Unapproved && len(f.Servers) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// contentHash is the hex sha256 approvals are tied to.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Secrets returns every secret of every server, shadowed ones included,
// for scrubbing logs and output.
func (c *Config) Secrets() []string {
	var out []string
	for _, s := range c.Servers {
		out = append(out, s.Secrets()...)
	}
	for _, sh := range c.Shadowed {
		out = append(out, sh.Server.Secrets()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// candidate is a file discovery found, before it is read.
type candidate struct {
	path  string
	scope Scope
}

// Load discovers, reads and validates the configuration:
//
//  1. each LoadOptions.Files entry (scope explicit); when any is given,
//     nothing else is discovered;
//  2. otherwise every ProjectFiles entry that exists in the project
//     directory (scope project), then the user's mcp.json in
//     UserConfigDir (scope user);
//  3. when no file was found at all, LoadOptions.Default (scope default).
//
// A name defined in several files resolves to the first of them in this
// order; the others are listed in Config.Shadowed.
//
// When any file has problems Load returns Errors listing all of them
// (across all files), together with a Config that holds Files and Warnings
// but no servers, so nothing can start from an invalid configuration.
func Load(opts LoadOptions) (*Config, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cands, errs := discover(opts)
	cfg := &Config{}
	var defs []Server
	var names []string
	read := func(c candidate, data []byte) {
		f := File{Path: c.path, Scope: c.scope, Hash: contentHash(data)}
		f.Unapproved = !opts.approved(f)
		names = append(names, c.path)
		servers, blocks, warns, err := parseFile(c.path, data, c.scope, opts)
		switch al := blocks.alerts; {
		case al == nil:
		case cfg.Alerts == nil:
			cfg.Alerts = al
		case cfg.Alerts.Webhook == nil && al.Webhook != nil:
			// A project's rules do not drop the user's webhook, which a
			// project file cannot set.
			cfg.Alerts.Webhook = al.Webhook
		default:
			cfg.Warnings = append(cfg.Warnings, Diagnostic{Pos: al.Pos, Field: "alerts",
				Message: fmt.Sprintf("is ignored: %s defines the alerts block in effect", cfg.Alerts.Source)})
		}
		gw := blocks.gateway
		if gw != nil && cfg.Gateway == nil {
			cfg.Gateway = gw
		} else if gw != nil {
			cfg.Warnings = append(cfg.Warnings, Diagnostic{Pos: gw.Pos, Field: "gateway",
				Message: fmt.Sprintf("is ignored: %s defines the gateway block in effect", cfg.Gateway.Source)})
		}
		cfg.Warnings = append(cfg.Warnings, warns...)
		var perr Errors
		switch {
		case errors.As(err, &perr):
			errs = append(errs, perr...)
		case err != nil:
			errs = append(errs, Diagnostic{Pos: Position{File: c.path}, Message: err.Error()})
		}
		for _, s := range servers {
			f.Servers = append(f.Servers, s.Name)
		}
		defs = append(defs, servers...)
		cfg.Files = append(cfg.Files, f)
	}
	for _, c := range cands {
		data, _, err := readRegular(c.path, maxFileSize)
		if err != nil {
			names = append(names, c.path)
			errs = append(errs, Diagnostic{Pos: Position{File: c.path}, Message: fmt.Sprintf("cannot read: %v; %s", unwrapPathError(err), readHint(c.scope))})
			continue
		}
		read(c, data)
	}
	if len(cands) == 0 && len(errs) == 0 && opts.Default != nil {
		read(candidate{path: opts.DefaultName, scope: ScopeDefault}, opts.Default)
	}
	sortDiagnostics(cfg.Warnings, names)
	if opts.KeepInvalid {
		errs = unattributed(errs, defs)
	}
	if len(errs) > 0 {
		sortDiagnostics(errs, names)
		return cfg, Errors(errs)
	}
	cfg.Servers, cfg.Shadowed = resolve(defs)
	return cfg, nil
}

// readHint says what to do about a file that cannot be read.
func readHint(s Scope) string {
	if s == ScopeExplicit {
		return "check the --config path"
	}
	return "fix its permissions or remove it"
}

// resolve picks the winner of each name; defs are in precedence order, so
// the first definition of a name wins.
func resolve(defs []Server) ([]Server, []Shadowed) {
	var servers []Server
	var shadowed []Shadowed
	winner := map[string]Server{}
	for _, s := range defs {
		if w, ok := winner[s.Name]; ok {
			shadowed = append(shadowed, Shadowed{Name: s.Name, Server: s, Winner: w.Source, WinnerScope: w.Scope})
			continue
		}
		winner[s.Name] = s
		servers = append(servers, s)
	}
	slices.SortFunc(servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(shadowed, func(a, b Shadowed) int { return strings.Compare(a.Name, b.Name) })
	return servers, shadowed
}

// discover lists the files to read. A missing explicit file is an error;
// missing discovered files are simply absent.
func discover(opts LoadOptions) ([]candidate, []Diagnostic) {
	var out []candidate
	var errs []Diagnostic
	seen := map[string]bool{}
	add := func(path string, scope Scope) {
		if !seen[path] {
			seen[path] = true
			out = append(out, candidate{path, scope})
		}
	}
	if len(opts.Files) > 0 {
		for _, f := range opts.Files {
			abs, err := filepath.Abs(f)
			if err != nil {
				errs = append(errs, Diagnostic{Pos: Position{File: f}, Message: fmt.Sprintf("cannot resolve the path: %v", err)})
				continue
			}
			add(abs, ScopeExplicit)
		}
		return out, errs
	}
	userFile := ""
	if opts.UserConfigDir != "" {
		userFile = filepath.Join(opts.UserConfigDir, "mcp.json")
	}
	for _, name := range ProjectFiles {
		path := filepath.Join(opts.ProjectDir, name)
		// Run from inside the user config directory, the user's own file
		// stays user scope: it needs no approval.
		if path != userFile && exists(path) {
			add(path, ScopeProject)
		}
	}
	if userFile != "" && exists(userFile) {
		add(userFile, ScopeUser)
	}
	return out, errs
}

// exists reports whether something is at path; anything but "not there"
// counts, so an unreadable file is reported rather than skipped.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
