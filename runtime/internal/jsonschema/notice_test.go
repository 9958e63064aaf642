package jsonschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Apache-2.0 §4(b): every file mcpdeck changed carries a prominent notice,
// and the README names it. A file is changed when it mentions mcpdeck at
// all (a changed import path, a "mcpdeck:" comment).
func TestChangedFilesCarryTheNotice(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	kind, _ := filepath.Glob(filepath.Join("kind", "*.go"))
	files = append(files, kind...)
	changed := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "mcpdeck") {
			continue
		}
		changed++
		if !strings.HasPrefix(string(src), "// mcpdeck: CHANGED FILE. This file is a modified copy of "+filepath.Base(f)) {
			t.Errorf("%s is changed but does not start with the change notice", f)
		}
		if !strings.Contains(string(readme), "`"+f+"`") {
			t.Errorf("%s is changed but README.md does not name it", f)
		}
	}
	if changed == 0 {
		t.Fatal("no changed file found: the test reads the wrong folder")
	}
}
