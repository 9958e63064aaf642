package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedEditor is an $EDITOR that, on its n-th run, keeps what it was
// given as seen-n and writes edit-n over it (or leaves it when there is no
// edit-n); after, when present, runs as the person saves.
type scriptedEditor struct{ dir string }

func newScriptedEditor(t *testing.T, edits ...string) scriptedEditor {
	t.Helper()
	e := scriptedEditor{dir: t.TempDir()}
	script := `n=$(cat "$D/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$D/count"
for f; do file="$f"; done
cp "$file" "$D/seen-$n"
[ -f "$D/edit-$n" ] && cp "$D/edit-$n" "$file"
[ -f "$D/after-$n" ] && sh "$D/after-$n"
exit 0
`
	os.WriteFile(filepath.Join(e.dir, "editor.sh"), []byte(script), 0o700)
	for i, text := range edits {
		os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("edit-%d", i+1)), []byte(text), 0o600)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "env D="+e.dir+" sh "+filepath.Join(e.dir, "editor.sh"))
	return e
}

func (e scriptedEditor) seen(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, fmt.Sprintf("seen-%d", n)))
	if err != nil {
		t.Fatalf("the editor did not run a %d. time: %v", n, err)
	}
	return string(b)
}

// runIn runs the command line in the project directory with stdin.
func (w configWorld) runIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Run("run", func(t *testing.T) {
		t.Chdir(w.project)
		var out, errb bytes.Buffer
		code = run(args, strings.NewReader(stdin), &out, &errb)
		stdout, stderr = out.String(), errb.String()
	})
	return code, stdout, stderr
}

const editUser = `// my servers
{
  "mcpServers": {
    "demo": {"command": "mcpdeck", "args": ["demo-server"]},
    "remote": {"url": "https://mcp.example.com/mcp"}
  }
}
`

// A file saved with an error opens again with the error above it, at the
// right line; once valid it replaces the original, comments and all.
func TestEditReopensOnError(t *testing.T) {
	w := newConfigWorld(t)
	user := w.write(t, filepath.Join(w.userDir, "mcp.json"), editUser)
	broken := strings.Replace(editUser, `"https://mcp.example.com/mcp"`, `"ftp://mcp.example.com/mcp"`, 1)
	fixed := strings.Replace(editUser, `"https://mcp.example.com/mcp"`, `"https://mcp.example.org/mcp"`, 1)
	ed := newScriptedEditor(t, broken, fixed)
	code, stdout, stderr := w.runIn(t, "y\n", "edit", "remote")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, user+":5:23: server \"remote\": field \"url\"") {
		t.Errorf("the error is not reported with its line and column:\n%s", stderr)
	}
	second := ed.seen(t, 2)
	lines := strings.Split(second, "\n")
	if !strings.HasPrefix(lines[0], editMark) || !strings.Contains(lines[1], `7:23: server "remote": field "url": "ftp://mcp.example.com/mcp" is not an http:// or https:// URL`) {
		t.Fatalf("the copy opened again without the error above it:\n%s", second)
	}
	if !strings.Contains(lines[6], `"ftp://`) {
		t.Errorf("line 7 of the reopened copy is not the one the error names:\n%s", second)
	}
	if got := string(readFile(t, user)); got != fixed {
		t.Errorf("saved:\n%s\nwant:\n%s", got, fixed)
	}
	if ed.seen(t, 1) != editUser {
		t.Errorf("the editor was not given the file:\n%s", ed.seen(t, 1))
	}
}

// Answering no (or nobody answering) keeps the file and the edit.
func TestEditAbandoned(t *testing.T) {
	w := newConfigWorld(t)
	user := w.write(t, filepath.Join(w.userDir, "mcp.json"), editUser)
	newScriptedEditor(t, `{"mcpServers": {"x": {}}}`)
	code, _, stderr := w.runIn(t, "n\n", "edit")
	if code != ExitUsage || !strings.Contains(stderr, "your edit is kept in ") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := string(readFile(t, user)); got != editUser {
		t.Errorf("the file changed:\n%s", got)
	}
	kept := strings.TrimSpace(stderr[strings.LastIndex(stderr, "kept in ")+len("kept in "):])
	if b, err := os.ReadFile(kept); err != nil || !strings.Contains(string(b), `"x": {}`) {
		t.Errorf("the edit was not kept at %q: %v", kept, err)
	} else {
		os.RemoveAll(filepath.Dir(kept))
	}
	newScriptedEditor(t) // saves as it is
	if code, _, stderr := w.runIn(t, "", "edit"); code != ExitOK || !strings.Contains(stderr, "no changes") {
		t.Errorf("no change: exit %d %s", code, stderr)
	}
	newScriptedEditor(t, "")
	if code, _, stderr := w.runIn(t, "", "edit"); code != ExitOK || !strings.Contains(stderr, "empty") {
		t.Errorf("emptied: exit %d %s", code, stderr)
	}
}

// A file changed by someone else while it was open is not overwritten.
func TestEditRefusesAChangedFile(t *testing.T) {
	w := newConfigWorld(t)
	user := w.write(t, filepath.Join(w.userDir, "mcp.json"), editUser)
	ed := newScriptedEditor(t, strings.Replace(editUser, "demo-server", "demo-server\", \"--log-interval\", \"1s", 1))
	theirs := `{"mcpServers": {}}`
	os.WriteFile(filepath.Join(ed.dir, "after-1"), []byte(fmt.Sprintf("printf '%%s' '%s' > %s\n", theirs, user)), 0o600)
	code, _, stderr := w.runIn(t, "", "edit")
	if code != ExitUsage || !strings.Contains(stderr, "changed since it was read") || !strings.Contains(stderr, "your edit is kept in") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := string(readFile(t, user)); got != theirs {
		t.Errorf("the other edit was lost:\n%s", got)
	}
}
