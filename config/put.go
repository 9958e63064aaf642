package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Writing one server into a file the way every face of mcpdeck does it
// (mcpdeck add, the TUI's add form, import, export): the file opened in
// its client's format, the secrets stored as chosen, the entry converted
// to that client's spelling, added or updated.

// LaunchFields are the fields a replaced definition rewrites; the others
// (a timeout, a client's own settings) stay as they are.
var LaunchFields = []string{"type", "command", "args", "env", "envFile", "cwd", "url", "serverUrl", "headers", "oauth", "auth"}

// OpenServerFile opens path for editing in the format of the client whose
// file it is (ClientOfFile): a new .vscode/mcp.json gets "servers", a new
// file is created 0600, or 0644 when shared (a project file, which the
// other clients write readable by all).
func OpenServerFile(path string, shared bool) (*Document, Client, error) {
	key := "mcpServers"
	if filepath.Base(filepath.Dir(path)) == ".vscode" {
		key = "servers"
	}
	c := ClientOfFile(path, key)
	mode := fs.FileMode(0o600)
	if shared {
		mode = 0o644
	}
	d, err := OpenDocument(path, DocOptions{Key: c.Key, Mode: mode, Normalize: c.ToMcpdeck})
	return d, c, err
}

// PutServer writes e, in mcpdeck's format, as server name into d, whose
// client is c: its secrets stored as how says, converted to c's spelling,
// added — or, with replace, its LaunchFields updated. inputs are VS Code
// inputs e refers to already. It returns what the person must know; Save
// writes the file.
func PutServer(d *Document, c Client, name string, e Entry, how SecretStorage, replace bool, inputs []Input) ([]Notice, error) {
	e, more, notes, err := StoreSecrets(name, e, how, c)
	if err != nil {
		return nil, err
	}
	inputs = append(inputs, more...)
	out, conv, err := c.Export(name, e)
	if err != nil {
		return nil, err
	}
	notes = append(notes, conv...)
	if c.Inputs {
		if err := d.AddInputs(inputs); err != nil {
			return nil, err
		}
	}
	_, exists := d.Entry(name)
	switch {
	case exists && replace:
		err = d.Update(name, out, LaunchFields)
	case exists:
		err = fmt.Errorf("%w: %q is already in %s; remove it first, or replace its definition", ErrExists, name, d.Path())
	default:
		err = d.Add(name, out)
	}
	return notes, err
}

// ParseServerJSON reads one server's definition in any client's shape:
// the entry itself ({"command": ...}, {"type": "http", "url": ...},
// Windsurf's {"serverUrl": ...}), a snippet with one server
// ({"mcpServers": {"name": {...}}}, VS Code's {"servers": {...}}), or VS
// Code's --add-mcp form ({"name": "x", "command": ...}), or one server
// keyed by its name ({"x": {...}}, also as the member a README prints
// inside its "mcpServers" block: "x": {...}). name, when not empty, names
// the server; else the JSON must. The entry comes back in mcpdeck's
// spelling.
func ParseServerJSON(name string, data []byte) (string, Entry, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '"' {
		// A member, not an object: "x": {...}, perhaps with its comma.
		data = append(append([]byte("{"), bytes.TrimSuffix(t, []byte(","))...), '}')
	}
	e, err := ParseEntry(data)
	if err != nil {
		return "", nil, fmt.Errorf("reading the server's JSON: %w", err)
	}
	if len(e) == 1 && !isServerEntry(e) && e[0].Name != "mcpServers" && e[0].Name != "servers" {
		if inner, err := ParseEntry(e[0].Value); err == nil && isServerEntry(inner) {
			if name == "" {
				name = e[0].Name
			}
			e = inner
		}
	}
	for _, key := range []string{"mcpServers", "servers"} {
		raw, ok := e.Get(key)
		if !ok {
			continue
		}
		inner, err := ParseEntry(raw)
		if err != nil || len(inner) != 1 {
			return "", nil, fmt.Errorf("reading the server's JSON: %q must hold exactly one server (it holds %d); add them one by one, or import the file", key, len(inner))
		}
		if name == "" {
			name = inner[0].Name
		}
		if e, err = ParseEntry(inner[0].Value); err != nil {
			return "", nil, fmt.Errorf("reading server %q: %w", inner[0].Name, err)
		}
	}
	if n, ok := e.String("name"); ok {
		if name == "" {
			name = n
		}
		e.Delete("name")
	}
	if name == "" {
		return "", nil, errors.New("the JSON does not name the server: give its name")
	}
	if !isServerEntry(e) {
		return "", nil, fmt.Errorf(`%w: %q has neither "command" nor "url"`, ErrNotAnEntry, name)
	}
	windsurf, _ := ClientByID("windsurf")
	return name, windsurf.ToMcpdeck(e), nil
}

// isServerEntry reports whether e defines a server: it has a command or a
// url (Windsurf's serverUrl too).
func isServerEntry(e Entry) bool {
	for _, k := range []string{"command", "url", "serverUrl"} {
		if _, ok := e.Get(k); ok {
			return true
		}
	}
	return false
}

// ServerOf reads e as mcpdeck would read server name in a file at path:
// variables expanded with opts (its LookupEnv, default the environment).
// Its Errors say what is wrong with which field.
func ServerOf(path, name string, e Entry, opts LoadOptions) (Server, error) {
	file := Entry{}
	file.Set("mcpServers", Entry{{name, mustMarshal(e)}})
	if opts.Approved == nil {
		opts.Approved = func(File) bool { return true }
	}
	servers, _, err := Parse(path, mustMarshal(file), ScopeExplicit, opts)
	if err != nil {
		return Server{}, err
	}
	return servers[0], nil
}
