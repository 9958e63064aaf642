package main

import (
	"bufio"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayers holds every package to the layers ARCHITECTURE.md lists,
// bottom-up, in its "layers" block: a package imports only packages of
// lower layers (so the folders of one layer never import each other), and
// every package of the module is in a layer, but the test-support
// folders (named …test), which no layered package may import. A new
// package, or an import that climbs, fails here until the page says
// where it belongs.
func TestLayers(t *testing.T) {
	layerOf := readLayers(t, "ARCHITECTURE.md")
	const module = "mcpdeck"
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			return nil // no Go package here (or only tests)
		}
		rel := filepath.ToSlash(dir)
		if testSupport(rel) {
			return nil
		}
		seen[rel] = true
		mine, ok := layerOf[rel]
		if !ok {
			t.Errorf("%s (package %s) is in no layer of ARCHITECTURE.md: add it where it belongs", rel, pkg.Name)
			return nil
		}
		for _, imp := range pkg.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if dep == "" {
				dep = "."
			}
			theirs, ok := layerOf[dep]
			switch {
			case testSupport(dep):
				t.Errorf("%s imports the test support %s", rel, dep)
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", rel, dep)
			case theirs >= mine:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only from the layers below its own", rel, mine+1, dep, theirs+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range layerOf {
		if !seen[dir] {
			t.Errorf("ARCHITECTURE.md lists %s, which is no package", dir)
		}
	}
}

// testSupport reports a folder of fakes and harnesses for tests.
func testSupport(dir string) bool { return strings.HasSuffix(path.Base(dir), "test") }

// readLayers reads the layers block of the page: one layer a line, bottom
// first, its folders separated by spaces and followed, after two spaces
// or more, by what the layer is.
func readLayers(t *testing.T, page string) map[string]int {
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	in, n := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "```layers":
			in = true
		case in && line == "```":
			return layers
		case in && strings.TrimSpace(line) != "":
			folders, _, _ := strings.Cut(line, "  ")
			for _, dir := range strings.Fields(folders) {
				if dir == "main.go" {
					dir = "." // the module's root package
				}
				layers[strings.TrimSuffix(dir, "/")] = n
			}
			n++
		}
	}
	t.Fatalf("%s has no layers block", page)
	return nil
}
