package record

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// runtimeEventTypes lists the struct types of package runtime that embed
// EventHeader, which is what makes a type a runtime.Event, by parsing the
// package's source: a type added there shows up here without anyone
// remembering to list it.
func runtimeEventTypes(t *testing.T) []string {
	t.Helper()
	dir := ".."
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("listing package runtime's files: %v", err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fld := range st.Fields.List {
				if id, ok := fld.Type.(*ast.Ident); ok && len(fld.Names) == 0 && id.Name == "EventHeader" {
					names = append(names, ts.Name.Name)
				}
			}
			return false
		})
	}
	sort.Strings(names)
	return names
}

func TestRegistryCoversRuntimeEvents(t *testing.T) {
	types := runtimeEventTypes(t)
	if len(types) < 10 {
		t.Fatalf("found only %d event types in package runtime (%v): the parser missed them", len(types), types)
	}
	registered := map[string]bool{}
	for typ, name := range registry.byType {
		if typ.PkgPath() == "mcpdeck/runtime" {
			registered[typ.Name()] = true
		}
		if name == "" {
			t.Errorf("%s has an empty kind", typ)
		}
	}
	for _, name := range types {
		if !registered[name] {
			t.Errorf("runtime.%s is an event but not in the registry: add kind[runtime.%s](%q) to registry.go", name, name, name)
		}
	}
}

func TestKindsAreStableNames(t *testing.T) {
	// Kinds are written to files: renaming one breaks every old recording.
	want := []string{"StateChanged", "Published", "NotificationReceived", "LogMessage", "Progress", "ListChanged",
		"ResourceUpdated", "RequestStarted", "RequestFinished", "RequestCancelled", "StderrLine", "StdoutNoise",
		"TrafficFrame", "ProtocolAnomaly", "Gap", "Live", "ReloadPlanned"}
	have := map[string]bool{}
	for _, k := range Kinds() {
		have[k] = true
	}
	for _, k := range want {
		if !have[k] {
			t.Errorf("kind %q is gone from the registry: old recordings hold it", k)
		}
	}
}

func TestNameOfShortcutsAgreeWithTheRegistry(t *testing.T) {
	for _, e := range samples() {
		name, ok := registry.nameOf(e)
		if want := registry.byType[reflect.TypeOf(e)]; !ok || name != want {
			t.Errorf("nameOf(%T) = %q, registry says %q", e, name, want)
		}
	}
}
