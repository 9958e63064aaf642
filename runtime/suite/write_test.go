package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendStepsKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo"+Ext)
	orig := `# my suite
server: demo   # from mcp.json
steps:
    # a comment in the list
    - id: echo
      call: echo
      args: {text: hi}

# trailing notes about the timeout
timeout: 5s
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err := AppendSteps(path, "demo", []NewStep{
		{ID: "echo", Kind: KindCall, Target: "echo", Args: map[string]any{"text": "again", "n": 2.0}, Snapshot: map[string]any{"content": []any{}}},
		{ID: "add", Kind: KindCall, Target: "add", Equals: []PathValue{{Path: "$.structuredContent.sum", Value: 3.0}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "echo-2,add" {
		t.Errorf("ids %v", ids)
	}
	data, _ := os.ReadFile(path)
	want := `# my suite
server: demo   # from mcp.json
steps:
    # a comment in the list
    - id: echo
      call: echo
      args: {text: hi}
    - id: echo-2
      call: echo
      args:
        "n": 2
        text: again
      expect:
        snapshot: true
    - id: add
      call: add
      expect:
        equals:
          $.structuredContent.sum: 3

# trailing notes about the timeout
timeout: 5s
`
	if string(data) != want {
		t.Errorf("appended:\n%s\nwant:\n%s", data, want)
	}
	s, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 3 || s.Steps[2].Expect.Equals[0].Value != 3.0 {
		t.Errorf("parsed back: %+v", s.Steps)
	}
	snap, err := os.ReadFile(s.SnapshotPath)
	if err != nil || !strings.Contains(string(snap), `"echo-2"`) {
		t.Errorf("snapshot file: %s %v", snap, err)
	}
}

func TestAppendStepsNewFileAndRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp-tests", "demo"+Ext)
	if _, err := AppendSteps(path, "demo", []NewStep{{ID: "x y", Kind: KindRead, Target: "demo://status", Snapshot: map[string]any{}}}); err != nil {
		t.Fatal(err)
	}
	s, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Server.Name != "demo" || len(s.Steps) != 1 || s.Steps[0].ID != "x-y" {
		t.Errorf("new suite: %+v", s)
	}
	// Another server's suite is not written to.
	if _, err := AppendSteps(path, "other", []NewStep{{ID: "a", Kind: KindList, Target: "tools"}}); err == nil || !strings.Contains(err.Error(), "tests server demo, not other") {
		t.Errorf("other server: %v", err)
	}
	// A suite with problems is left alone.
	bad := filepath.Join(dir, "bad"+Ext)
	if err := os.WriteFile(bad, []byte("server: demo\nsteps: oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendSteps(bad, "demo", []NewStep{{ID: "a", Kind: KindList, Target: "tools"}}); err == nil {
		t.Error("appended to a broken suite")
	}
	if data, _ := os.ReadFile(bad); string(data) != "server: demo\nsteps: oops\n" {
		t.Errorf("the broken suite changed: %q", data)
	}
}

func TestFieldsArePathsThatSelectThem(t *testing.T) {
	doc := toDoc(map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}}, "isError": false,
		"structuredContent": map[string]any{"odd key": 1, "it's": true, "empty": []any{}}})
	fields := Fields(doc, 100)
	var paths []string
	for _, f := range fields {
		paths = append(paths, f.Path)
		got, found, err := selectAt(f.Path, doc)
		if err != nil || !found || !equalJSON(got, f.Value) {
			t.Errorf("%s selects %v (%v, %v), want %v", f.Path, got, found, err, f.Value)
		}
	}
	want := `$.content[0].text $.content[0].type $.isError $.structuredContent.empty $.structuredContent['it\'s'] $.structuredContent['odd key']`
	if strings.Join(paths, " ") != want {
		t.Errorf("paths:\n got %s\nwant %s", strings.Join(paths, " "), want)
	}
	if len(Fields(doc, 2)) != 2 {
		t.Error("the limit was not kept")
	}
}
