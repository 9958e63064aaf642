package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Sentinel errors of editing; match them with errors.Is.
var (
	// ErrExists: a server of that name is already in the file.
	ErrExists = errors.New("server already exists")
	// ErrNoSuchServer: the file defines no server of that name.
	ErrNoSuchServer = errors.New("no such server")
	// ErrChanged: the file changed between reading and writing it, so
	// nothing was written (another program, or a person, edited it).
	ErrChanged = errors.New("file changed since it was read")
)

// Document is one configuration file opened for editing. Edits patch the
// file's syntax tree (github.com/tailscale/hujson), so comments, member
// order, indentation and trailing commas outside the edited entries stay
// byte for byte as they were; Save validates the result and replaces the
// file atomically. A Document is not safe for concurrent use.
type Document struct {
	path   string      // as given: what messages name
	data   []byte      // content as read (nil when the file did not exist)
	exists bool        // the file existed when read
	mode   fs.FileMode // the file's permissions, or DocOptions.Mode for a new one
	root   hujson.Value
	opts   DocOptions
	// key is the servers object's name: the file's own ("mcpServers" or
	// "servers"), else DocOptions.Key.
	key string
	// standard: the file was plain JSON, so it stays plain JSON (clients
	// such as Claude Desktop read it with JSON.parse).
	standard bool
	unit     string          // one level of indentation, as the file uses it
	touched  map[string]bool // servers added or changed: validated on Save
	// whole: the content was replaced by hand (SetContent); Save
	// validates the whole file.
	whole bool
}

// DocOptions say where a file keeps its servers and how a new file looks.
type DocOptions struct {
	// Container is the JSON pointer (RFC 6901) of the object that holds
	// the servers object: "" for the top level, or for Claude Code's
	// per-project servers "/projects/~1home~1me~1app".
	Container string
	// Key names the servers object when the file has none yet:
	// "mcpServers" (the default) or "servers" (VS Code).
	Key string
	// Mode is the permission of a file that does not exist yet; default
	// 0600, since a configuration may hold credentials.
	Mode fs.FileMode
	// Normalize maps an entry written in a client's own spellings to
	// mcpdeck's before Save validates it (Windsurf's "serverUrl").
	Normalize func(Entry) Entry
}

// OpenDocument reads path for editing; a missing file is an empty
// document that Save creates.
func OpenDocument(path string, o DocOptions) (*Document, error) {
	if o.Key == "" {
		o.Key = "mcpServers"
	}
	if o.Mode == 0 {
		o.Mode = 0o600
	}
	d := &Document{path: path, opts: o, mode: o.Mode, key: o.Key, touched: map[string]bool{}}
	data, info, err := readForEdit(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.standard = true
		data = nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPathError(err))
	default:
		d.exists, d.mode = true, info.Mode().Perm()
	}
	d.data = data
	src := data
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	if off := nestingTooDeep(src); off >= 0 {
		return nil, fmt.Errorf("reading %s: objects nest deeper than %d levels; this is not a configuration file", path, maxNesting)
	}
	d.root, err = hujson.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %s; fix it first (mcpdeck edit opens it)", path, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if d.exists {
		d.standard = d.root.IsStandard()
	}
	if _, ok := d.root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("%s: the top level must be an object, not %s", path, kindName(d.root.Value.Kind()))
	}
	if c := d.root.Find(o.Container); c != nil {
		if _, ok := c.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("%s: %s must be an object, not %s", path, o.Container, kindName(c.Value.Kind()))
		}
		for _, k := range []string{"mcpServers", "servers"} {
			if s := c.Find("/" + k); s != nil {
				if _, ok := s.Value.(*hujson.Object); !ok {
					return nil, fmt.Errorf("%s: %q must be an object mapping names to servers, not %s", path, k, kindName(s.Value.Kind()))
				}
				d.key = k
				break
			}
		}
	}
	d.unit = indentUnit(src)
	return d, nil
}

// readForEdit reads a file to edit. Clients' own files can be large
// (Claude Code's ~/.claude.json keeps per-project state), so the bound is
// wider than for files mcpdeck only reads.
func readForEdit(path string) ([]byte, fs.FileInfo, error) {
	return readRegular(path, maxEditSize)
}

// maxEditSize bounds a file opened for editing.
const maxEditSize = 64 << 20

// SetContent replaces the whole document with data, as a person edited it
// (mcpdeck edit); Save then validates the whole file.
func (d *Document) SetContent(data []byte) error {
	root, err := hujson.Parse(data)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON: %s", d.path, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	d.root, d.whole = root, true
	return nil
}

// Content is the file as it was read (nil when it did not exist).
func (d *Document) Content() []byte { return d.data }

// UserFile is the user's own mcp.json, $XDG_CONFIG_HOME/mcpdeck/mcp.json
// (else ~/.config/mcpdeck/mcp.json): the file Load reads in user scope.
func UserFile() (string, error) {
	o, err := LoadOptions{}.withDefaults()
	if err != nil {
		return "", err
	}
	if o.UserConfigDir == "" {
		return "", errors.New("cannot find the user configuration directory: set HOME or XDG_CONFIG_HOME")
	}
	return filepath.Join(o.UserConfigDir, "mcp.json"), nil
}

// Path is the file being edited.
func (d *Document) Path() string { return d.path }

// Exists reports whether the file existed when it was read.
func (d *Document) Exists() bool { return d.exists }

// Key is the name of the file's servers object.
func (d *Document) Key() string { return d.key }

// Bytes is the document as it would be written now.
func (d *Document) Bytes() []byte {
	if !d.exists && len(d.touched) == 0 && d.serversObject() == nil {
		return nil
	}
	return d.root.Pack()
}

// Changed reports whether an edit changed the content.
func (d *Document) Changed() bool { return !bytes.Equal(d.Bytes(), d.data) }

func (d *Document) serversPtr() string { return d.opts.Container + "/" + d.key }

func (d *Document) serversObject() *hujson.Object {
	v := d.root.Find(d.serversPtr())
	if v == nil {
		return nil
	}
	obj, _ := v.Value.(*hujson.Object)
	return obj
}

// Names are the servers the file defines, in file order.
func (d *Document) Names() []string {
	obj := d.serversObject()
	if obj == nil {
		return nil
	}
	out := make([]string, 0, len(obj.Members))
	for _, m := range obj.Members {
		out = append(out, m.Name.Value.(hujson.Literal).String())
	}
	return out
}

// Entry returns the definition of the server called name, without its
// comments.
func (d *Document) Entry(name string) (Entry, bool) {
	v := d.root.Find(d.serverPtr(name))
	if v == nil {
		return nil, false
	}
	e, err := entryOf(v)
	return e, err == nil
}

func (d *Document) serverPtr(name string) string { return d.serversPtr() + "/" + pointerToken(name) }

// Add adds a server at the end of the servers object (creating the object
// when the file has none). It refuses a name that is already there.
func (d *Document) Add(name string, e Entry) error {
	if !serverName.MatchString(name) {
		return fmt.Errorf("adding %q to %s: invalid server name: use 1 to 64 letters, digits, '_', '.' or '-'", name, d.path)
	}
	if d.root.Find(d.serverPtr(name)) != nil {
		return fmt.Errorf("adding %q to %s: %w", name, d.path, ErrExists)
	}
	if err := d.ensureObject(d.opts.Container); err != nil {
		return err
	}
	if err := d.ensureObject(d.serversPtr()); err != nil {
		return err
	}
	if err := d.insert(d.serversPtr(), name, mustMarshal(e)); err != nil {
		return fmt.Errorf("adding %q to %s: %w", name, d.path, err)
	}
	d.touched[name] = true
	return nil
}

// Update changes the server called name to e, member by member: members
// of e are replaced (when their value differs) or added at the end;
// members named in managed that e lacks are removed; every other member,
// and every comment around the members it does not change, stays. A
// client's own settings (VS Code's "dev") survive an edit of the fields
// mcpdeck knows.
func (d *Document) Update(name string, e Entry, managed []string) error {
	ptr := d.serverPtr(name)
	v := d.root.Find(ptr)
	if v == nil {
		return fmt.Errorf("changing %q in %s: %w", name, d.path, ErrNoSuchServer)
	}
	old, err := entryOf(v)
	if err != nil {
		return fmt.Errorf("changing %q in %s: %w", name, d.path, err)
	}
	for _, f := range old {
		if slices.Contains(managed, f.Name) && e.index(f.Name) < 0 {
			if err := d.remove(ptr, f.Name); err != nil {
				return fmt.Errorf("changing %q in %s: %w", name, d.path, err)
			}
		}
	}
	for _, f := range e {
		if prev, ok := old.Get(f.Name); ok {
			if jsonEqual(prev, f.Value) {
				continue
			}
			if err := d.replace(ptr, f.Name, f.Value); err != nil {
				return fmt.Errorf("changing %q in %s: %w", name, d.path, err)
			}
			continue
		}
		if err := d.insert(ptr, f.Name, f.Value); err != nil {
			return fmt.Errorf("changing %q in %s: %w", name, d.path, err)
		}
	}
	d.touched[name] = true
	return nil
}

// Remove deletes the server called name, and its mention in the file's
// "disabledServers", if any.
func (d *Document) Remove(name string) error {
	if d.root.Find(d.serverPtr(name)) == nil {
		return fmt.Errorf("removing %q from %s: %w", name, d.path, ErrNoSuchServer)
	}
	if err := d.remove(d.serversPtr(), name); err != nil {
		return fmt.Errorf("removing %q from %s: %w", name, d.path, err)
	}
	delete(d.touched, name)
	return d.undisable(name)
}

// SetEnabled switches a server on or off with the file's own field: an
// "enabled" member is set, else "disabled": true is added (and removed
// again to enable); "disabledServers" loses the name when enabling.
func (d *Document) SetEnabled(name string, on bool) error {
	e, ok := d.Entry(name)
	if !ok {
		return fmt.Errorf("switching %q in %s: %w", name, d.path, ErrNoSuchServer)
	}
	next := e.Clone()
	switch {
	case on:
		next.Delete("disabled")
		if _, has := e.Get("enabled"); has {
			next.Set("enabled", true)
		}
	default:
		if _, has := e.Get("enabled"); has {
			next.Set("enabled", false)
			next.Delete("disabled")
		} else {
			next.Set("disabled", true)
		}
	}
	if err := d.Update(name, next, []string{"enabled", "disabled"}); err != nil {
		return err
	}
	if on {
		return d.undisable(name)
	}
	return nil
}

// undisable removes name from the container's "disabledServers".
func (d *Document) undisable(name string) error {
	ptr := d.opts.Container + "/disabledServers"
	v := d.root.Find(ptr)
	if v == nil {
		return nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		if lit, ok := arr.Elements[i].Value.(hujson.Literal); ok && lit.Kind() == '"' && lit.String() == name {
			if err := d.patch(op{"remove", fmt.Sprintf("%s/%d", ptr, i), nil}); err != nil {
				return fmt.Errorf("removing %q from %s: %w", name, ptr, err)
			}
		}
	}
	return nil
}

// Input is a VS Code prompt input ("inputs": [{"type": "promptString", ...}]).
type Input struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Password    bool   `json:"password,omitempty"`
}

// AddInputs declares VS Code inputs at the top level of the file, skipping
// ids the file declares already.
func (d *Document) AddInputs(in []Input) error {
	if len(in) == 0 {
		return nil
	}
	if d.root.Find("/inputs") == nil {
		if err := d.insert("", "inputs", []byte("[]")); err != nil {
			return fmt.Errorf("adding inputs to %s: %w", d.path, err)
		}
	}
	arr, ok := d.root.Find("/inputs").Value.(*hujson.Array)
	if !ok {
		return fmt.Errorf("adding inputs to %s: \"inputs\" is not an array", d.path)
	}
	have := map[string]bool{}
	for _, el := range arr.Elements {
		if obj, ok := el.Value.(*hujson.Object); ok {
			for _, m := range obj.Members {
				if m.Name.Value.(hujson.Literal).String() == "id" {
					if lit, ok := m.Value.Value.(hujson.Literal); ok {
						have[lit.String()] = true
					}
				}
			}
		}
	}
	for _, i := range in {
		if have[i.ID] {
			continue
		}
		have[i.ID] = true
		if i.Type == "" {
			i.Type = "promptString"
		}
		if err := d.appendElement("/inputs", mustMarshal(i)); err != nil {
			return fmt.Errorf("adding inputs to %s: %w", d.path, err)
		}
	}
	return nil
}

// InputIDs are the ids of the file's top-level "inputs".
func (d *Document) InputIDs() []string {
	v := d.root.Find("/inputs")
	if v == nil {
		return nil
	}
	var ins []Input
	std := v.Clone()
	std.Standardize()
	if err := jsonUnmarshal(std.Pack(), &ins); err != nil {
		return nil
	}
	var out []string
	for _, i := range ins {
		out = append(out, i.ID)
	}
	return out
}

// ensureObject creates the object at ptr (and its parents) when missing.
func (d *Document) ensureObject(ptr string) error {
	if ptr == "" || d.root.Find(ptr) != nil {
		return nil
	}
	parent, name := splitPointer(ptr)
	if err := d.ensureObject(parent); err != nil {
		return err
	}
	return d.insert(parent, name, []byte("{}"))
}

func mustMarshal(v any) []byte {
	raw, err := marshalValue(v)
	if err != nil {
		panic(fmt.Sprintf("config: %v", err)) // our own values always marshal
	}
	return raw
}
