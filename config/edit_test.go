package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// clientFixture is a copy of a real-shaped file of one client, and where
// its servers live.
type clientFixture struct {
	file      string
	container string
	key       string
	servers   []string // in file order
	standard  bool     // plain JSON: the client reads it with JSON.parse
}

var clientFixtures = []clientFixture{
	{"claude_desktop_config.json", "", "mcpServers", []string{"filesystem", "github"}, true},
	{"claude.json", "", "mcpServers", []string{"sentry", "airtable"}, true},
	{"claude.json", "/projects/~1home~1me~1app", "mcpServers", []string{"db"}, true},
	{"claude-code.mcp.json", "", "mcpServers", []string{"api-server", "local-db"}, true},
	{"cursor-mcp.json", "", "mcpServers", []string{"web-search", "userjot"}, true},
	{"vscode-mcp.json", "", "servers", []string{"Perplexity", "fetch", "github"}, false},
	{"windsurf-mcp_config.json", "", "mcpServers", []string{"github", "memory"}, true},
}

func (f clientFixture) name() string { return f.file + f.container }

// copyFixture copies a client fixture into a temporary directory.
func copyFixture(t *testing.T, name string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o640); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// changedRegion returns the part of old that differs from new: bytes
// before start and after end (counted from the end) are identical.
func changedRegion(old, new []byte) (start, end int) {
	for start < len(old) && start < len(new) && old[start] == new[start] {
		start++
	}
	s := 0
	for s < len(old)-start && s < len(new)-start && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	return start, len(old) - s
}

// span returns the byte range of ptr's value in data, widened to the
// separator before it and the comment after it: the bytes an edit of that
// value may touch.
func span(t *testing.T, data []byte, parent, name string) (int, int) {
	t.Helper()
	root, err := hujson.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	obj := root.Find(parent).Value.(*hujson.Object)
	for i, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() != name {
			continue
		}
		lo := root.Find(parent).StartOffset + 1
		if i > 0 {
			lo = obj.Members[i-1].Value.EndOffset
		}
		hi := root.Find(parent).EndOffset
		if i+1 < len(obj.Members) {
			hi = obj.Members[i+1].Name.StartOffset
		}
		return lo, hi
	}
	t.Fatalf("%s has no %q", parent, name)
	return 0, 0
}

// assertWithin fails unless new is old with only [lo, hi) replaced: the
// bytes before lo and from hi on are still there, unchanged.
func assertWithin(t *testing.T, old, new []byte, lo, hi int, what string) {
	t.Helper()
	if !bytes.HasPrefix(new, old[:lo]) || !bytes.HasSuffix(new[lo:], old[hi:]) {
		start, end := changedRegion(old, new)
		t.Errorf("%s changed bytes %d–%d, outside %d–%d:\n--- before\n%s\n--- after\n%s", what, start, end, lo, hi, old, new)
	}
}

// parsed reads data as mcpdeck does and returns the servers in the
// container (a nested container is read alone, as its client does).
func parsed(t *testing.T, data []byte, f clientFixture) map[string]Server {
	t.Helper()
	if f.file == "windsurf-mcp_config.json" {
		data = bytes.ReplaceAll(data, []byte(`"serverUrl"`), []byte(`"url"`))
	}
	if f.container != "" {
		root, err := hujson.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		v := root.Find(f.container)
		v.Standardize()
		data = v.Pack()
	}
	servers, _, err := Parse("mcp.json", data, ScopeExplicit, LoadOptions{ProjectDir: "/proj",
		LookupEnv: func(string) (string, bool) { return "https://set.example", true }})
	if err != nil {
		t.Fatalf("%s no longer parses: %v\n%s", f.name(), err, data)
	}
	out := map[string]Server{}
	for _, s := range servers {
		out[s.Name] = s
	}
	return out
}

func openFixture(t *testing.T, f clientFixture) (*Document, []byte) {
	t.Helper()
	path, data := copyFixture(t, f.file)
	d, err := OpenDocument(path, DocOptions{Container: f.container, Key: "mcpServers"})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Names(); !slices.Equal(got, f.servers) {
		t.Fatalf("%s: servers %v, want %v", f.name(), got, f.servers)
	}
	if d.Key() != f.key {
		t.Fatalf("%s: key %q, want the file's own %q", f.name(), d.Key(), f.key)
	}
	return d, data
}

func newEntry(t *testing.T, text string) Entry {
	t.Helper()
	e, err := ParseEntry([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Adding a server to each client's file inserts it after the last one,
// indented like its siblings, and changes nothing else: comments,
// formatting, other keys and trailing commas stay byte for byte. Removing
// it again gives back the original file.
func TestAddKeepsEverythingElse(t *testing.T) {
	t.Parallel()
	for _, f := range clientFixtures {
		t.Run(f.name(), func(t *testing.T) {
			d, data := openFixture(t, f)
			e := newEntry(t, `{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"LOG": "debug"}}`)
			if err := d.Add("everything", e); err != nil {
				t.Fatal(err)
			}
			got := d.Bytes()
			ptr := f.container + "/" + f.key
			root, _ := hujson.Parse(data)
			obj := root.Find(ptr)
			assertWithin(t, data, got, obj.StartOffset, obj.EndOffset, "adding")
			if start, end := changedRegion(data, got); len(got)-len(data) < end-start {
				t.Errorf("adding replaced bytes instead of inserting")
			}
			servers := parsed(t, got, f)
			s, ok := servers["everything"]
			if !ok || s.Command != "npx" || !slices.Equal(s.Args, []string{"-y", "@modelcontextprotocol/server-everything"}) || s.Env["LOG"] != "debug" {
				t.Fatalf("the added server reads back as %+v\n%s", s, got)
			}
			if !slices.Equal(d.Names(), append(slices.Clone(f.servers), "everything")) {
				t.Errorf("names after adding: %v", d.Names())
			}
			if f.standard {
				if v, _ := hujson.Parse(got); !v.IsStandard() {
					t.Errorf("a plain JSON file got comments or trailing commas:\n%s", got)
				}
			}
			// The new member is indented as its siblings.
			unit := indentUnit(data)
			depth := strings.Count(ptr, "/") + 1
			if want := "\n" + strings.Repeat(unit, depth) + `"everything": {`; !bytes.Contains(got, []byte(want)) {
				t.Errorf("the new server is not indented like its siblings (%q):\n%s", want, got)
			}
			if err := d.Remove("everything"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(d.Bytes(), data) {
				t.Errorf("adding then removing changed the file:\n--- before\n%s\n--- after\n%s", data, d.Bytes())
			}
		})
	}
}

// Removing any server of any client's file removes its entry and nothing
// else; the other servers read back the same.
func TestRemoveKeepsEverythingElse(t *testing.T) {
	t.Parallel()
	for _, f := range clientFixtures {
		for _, name := range f.servers {
			t.Run(f.name()+"/"+name, func(t *testing.T) {
				d, data := openFixture(t, f)
				before := parsed(t, data, f)
				if err := d.Remove(name); err != nil {
					t.Fatal(err)
				}
				got := d.Bytes()
				lo, hi := span(t, data, f.container+"/"+f.key, name)
				assertWithin(t, data, got, lo, hi, "removing")
				after := parsed(t, got, f)
				if _, still := after[name]; still {
					t.Fatalf("%s is still there:\n%s", name, got)
				}
				for n, s := range before {
					if n != name && !s.Equal(after[n]) {
						t.Errorf("%s changed: %+v → %+v", n, s, after[n])
					}
				}
				if f.standard {
					if v, _ := hujson.Parse(got); !v.IsStandard() {
						t.Errorf("a plain JSON file got a trailing comma:\n%s", got)
					}
				}
			})
		}
	}
}

// Switching a server off and on again touches only that entry and gives
// back the original bytes.
func TestDisableEnableRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range clientFixtures {
		for _, name := range f.servers {
			t.Run(f.name()+"/"+name, func(t *testing.T) {
				d, data := openFixture(t, f)
				if err := d.SetEnabled(name, false); err != nil {
					t.Fatal(err)
				}
				got := d.Bytes()
				lo, hi := span(t, data, f.container+"/"+f.key, name)
				assertWithin(t, data, got, lo, hi, "disabling")
				if f.file != "windsurf-mcp_config.json" {
					if s := parsed(t, got, f)[name]; s.Enabled {
						t.Fatalf("%s is still enabled:\n%s", name, got)
					}
				}
				if err := d.SetEnabled(name, true); err != nil {
					t.Fatal(err)
				}
				if name == "memory" { // Windsurf's own "disabled": false becomes absent
					return
				}
				if !bytes.Equal(d.Bytes(), data) {
					t.Errorf("off and on again changed the file:\n--- before\n%s\n--- after\n%s", data, d.Bytes())
				}
			})
		}
	}
}

// Update changes the members it is given, in place, and keeps the
// client's own members (VS Code's "dev") and the comments around them.
func TestUpdateChangesOnlyTheEntry(t *testing.T) {
	t.Parallel()
	f := clientFixtures[5] // VS Code: comments, tabs, trailing commas
	d, data := openFixture(t, f)
	e := newEntry(t, `{"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch", "--ignore-robots-txt"], "env": {"PROXY": "http://proxy:3128"}}`)
	if err := d.Update("fetch", e, []string{"type", "command", "args", "env", "cwd"}); err != nil {
		t.Fatal(err)
	}
	got := d.Bytes()
	lo, hi := span(t, data, "/servers", "fetch")
	assertWithin(t, data, got, lo, hi, "updating")
	for _, keep := range []string{`"dev": {"watch": "src/**/*.py"}, /* VS Code's own setting */`, "// A local server that needs an API key"} {
		if !bytes.Contains(got, []byte(keep)) {
			t.Errorf("updating lost %q:\n%s", keep, got)
		}
	}
	s := parsed(t, got, f)["fetch"]
	if !slices.Equal(s.Args, []string{"mcp-server-fetch", "--ignore-robots-txt"}) || s.Env["PROXY"] != "http://proxy:3128" {
		t.Errorf("fetch reads back as %+v", s)
	}
	if !bytes.Contains(got, []byte("\t\t\t\"env\": {\n\t\t\t\t\"PROXY\": \"http://proxy:3128\"\n\t\t\t},\n")) {
		t.Errorf("the new member is not laid out with the file's tabs and trailing commas:\n%s", got)
	}
}

func TestAddRefusesAnExistingName(t *testing.T) {
	t.Parallel()
	d, _ := openFixture(t, clientFixtures[0])
	err := d.Add("github", newEntry(t, `{"command": "x"}`))
	if !errors.Is(err, ErrExists) {
		t.Fatalf("adding an existing name: %v", err)
	}
	if err := d.Remove("nope"); !errors.Is(err, ErrNoSuchServer) {
		t.Fatalf("removing a missing server: %v", err)
	}
	if err := d.Add("bad name!", newEntry(t, `{"command": "x"}`)); err == nil || !strings.Contains(err.Error(), "invalid server name") {
		t.Fatalf("adding a bad name: %v", err)
	}
}

// A file that does not exist yet is created with the servers object, two
// spaces of indentation, mode 0600.
func TestSaveCreatesAFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "sub", "mcp.json")
	d, err := OpenDocument(path, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Add("demo", newEntry(t, `{"command": "mcpdeck", "args": ["demo-server"]}`)); err != nil {
		t.Fatal(err)
	}
	saved, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "{\n  \"mcpServers\": {\n    \"demo\": {\n      \"command\": \"mcpdeck\",\n      \"args\": [\n        \"demo-server\"\n      ]\n    }\n  }\n}\n"
	if string(got) != want {
		t.Errorf("new file:\n%s\nwant:\n%s", got, want)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 || !saved.Created {
		t.Errorf("mode %v, created %v", info.Mode().Perm(), saved.Created)
	}
	if saved.NewHash != contentHash(got) || saved.OldHash == saved.NewHash {
		t.Errorf("hashes %+v", saved)
	}
}

// Save keeps the file's mode, writes through a symbolic link to its
// target, and leaves no temporary file behind.
func TestSaveKeepsModeAndLink(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	target, _ := copyFixture(t, "cursor-mcp.json")
	link := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDocument(link, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("userjot"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v", err)
	}
	info, _ := os.Stat(target)
	if info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the original 0640", info.Mode().Perm())
	}
	got, _ := os.ReadFile(target)
	if bytes.Contains(got, []byte("userjot")) {
		t.Errorf("the target was not written:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(target))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".mcpdeck-") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// A file changed by someone else between reading and saving is not
// overwritten.
func TestSaveRefusesAChangedFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path, _ := copyFixture(t, "claude-code.mcp.json")
	d, err := OpenDocument(path, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("local-db"); err != nil {
		t.Fatal(err)
	}
	theirs := []byte(`{"mcpServers": {"theirs": {"command": "x"}}}`)
	if err := os.WriteFile(path, theirs, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save(); !errors.Is(err, ErrChanged) {
		t.Fatalf("saving over a changed file: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, theirs) {
		t.Errorf("the other writer's content was lost:\n%s", got)
	}
	// A file created meanwhile counts as changed too.
	fresh := filepath.Join(t.TempDir(), "new.json")
	d, _ = OpenDocument(fresh, DocOptions{})
	_ = d.Add("a", newEntry(t, `{"command": "x"}`))
	os.WriteFile(fresh, theirs, 0o600)
	if _, err := d.Save(); !errors.Is(err, ErrChanged) {
		t.Fatalf("saving over a file created meanwhile: %v", err)
	}
}

// An entry mcpdeck would not accept is refused before anything is
// written, with the server, the field and where it is.
func TestSaveValidatesFirst(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path, data := copyFixture(t, "cursor-mcp.json")
	d, _ := OpenDocument(path, DocOptions{})
	if err := d.Add("broken", newEntry(t, `{"url": "ftp://example.com/mcp"}`)); err != nil {
		t.Fatal(err)
	}
	_, err := d.Save()
	var errs Errors
	if !errors.As(err, &errs) || errs[0].Server != "broken" || errs[0].Field != "url" || errs[0].Pos.Line != 16 {
		t.Fatalf("saving an invalid entry: %v (%+v)", err, errs)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Errorf("the file was written anyway")
	}
}

// A reference to a variable that is not set is no error (it may be set
// before the server starts) but is reported.
func TestSaveReportsUnsetVariables(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("MCPDECK_TEST_SET", "yes")
	path := filepath.Join(t.TempDir(), "mcp.json")
	d, _ := OpenDocument(path, DocOptions{})
	_ = d.Add("brave", newEntry(t, `{"command": "npx", "args": ["-y", "@brave/brave-search-mcp-server@2.0.58"], "env": {"BRAVE_API_KEY": "${env:MCPDECK_TEST_UNSET_KEY}", "X": "${MCPDECK_TEST_SET}"}}`))
	_ = d.Add("remote", newEntry(t, `{"type": "http", "url": "${env:MCPDECK_TEST_UNSET_URL}/mcp"}`))
	saved, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(saved.Unset, []string{"MCPDECK_TEST_UNSET_KEY", "MCPDECK_TEST_UNSET_URL"}) {
		t.Errorf("unset: %v", saved.Unset)
	}
}

// Inputs are declared once, after the existing ones, in the file's style.
func TestAddInputs(t *testing.T) {
	t.Parallel()
	d, data := openFixture(t, clientFixtures[5])
	err := d.AddInputs([]Input{{ID: "perplexity-key"}, {ID: "brave-key", Description: "Brave Search API key", Password: true}})
	if err != nil {
		t.Fatal(err)
	}
	got := d.Bytes()
	root, _ := hujson.Parse(data)
	in := root.Find("/inputs")
	assertWithin(t, data, got, in.StartOffset, in.EndOffset, "adding inputs")
	if !slices.Equal(d.InputIDs(), []string{"perplexity-key", "brave-key"}) {
		t.Errorf("inputs: %v\n%s", d.InputIDs(), got)
	}
	if !bytes.Contains(got, []byte("\t\t},\n\t\t{\n\t\t\t\"id\": \"brave-key\",")) {
		t.Errorf("the new input is not laid out like the first:\n%s", got)
	}
}
