package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandVariables(t *testing.T) {
	sc := &scope{
		results: map[string]any{"login": map[string]any{"content": []any{map[string]any{"type": "text", "text": "tok-123"}},
			"structuredContent": map[string]any{"n": 42.0, "user": map[string]any{"id": "u1"}}}},
		failed: map[string]bool{"broken": true},
		lookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"HOME": "/home/ada", "EMPTY": ""}[k]
			return v, ok
		},
		inputs: map[string]string{"api-key": "s3cret"},
	}
	tests := []struct {
		in   string
		want any
		err  string
	}{
		{in: "plain", want: "plain"},
		{in: "${steps.login.result.content[0].text}", want: "tok-123"},
		{in: "Bearer ${steps.login.result.content[0].text}", want: "Bearer tok-123"},
		{in: "${steps.login.result.structuredContent.n}", want: 42.0},
		{in: "n=${steps.login.result.structuredContent.n}", want: "n=42"},
		{in: "${steps.login.result.structuredContent.user}", want: map[string]any{"id": "u1"}},
		{in: "u=${steps.login.result.structuredContent.user}", want: `u={"id":"u1"}`},
		{in: "${env:HOME}/x", want: "/home/ada/x"},
		{in: "${env:EMPTY:-dflt}", want: "dflt"},
		{in: "${env:UNSET:-dflt}", want: "dflt"},
		{in: "${input:api-key}", want: "s3cret"},
		{in: "$${env:HOME}", want: "${env:HOME}"},
		{in: "${env:UNSET}", err: "environment variable UNSET is not set"},
		{in: "${input:other}", err: `the suite's inputs: give no "other"`},
		{in: "${steps.broken.result}", err: "step broken failed"},
		{in: "${steps.none.result}", err: "step none has no result"},
		{in: "${steps.login.result.content[*].type}", want: "text"},
		{in: "${steps.login.result.nothing}", err: "selects nothing"},
		{in: "${steps.login", err: "unterminated"},
	}
	for _, tt := range tests {
		got, err := sc.expand(tt.in)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case !equalJSON(got, tt.want):
			t.Errorf("%s = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestSelectAndIgnore(t *testing.T) {
	doc := toDoc(map[string]any{"items": []any{map[string]any{"id": 1, "at": "t1"}, map[string]any{"id": 2, "at": "t2"}}, "meta": map[string]any{"at": "t3"}})
	if v, found, _ := selectAt("$.items[1].id", doc); !found || v != 2.0 {
		t.Errorf("singular: %v %v", v, found)
	}
	if v, found, _ := selectAt("$.items[*].id", doc); !found || compact(v) != "[1,2]" {
		t.Errorf("wildcard: %v %v", v, found)
	}
	if _, found, _ := selectAt("$.items[5]", doc); found {
		t.Error("a missing index was found")
	}
	ignored, err := ignorePaths(doc, []string{"$..at"})
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(ignored); got != `{"items":[{"at":"<ignored>","id":1},{"at":"<ignored>","id":2}],"meta":{"at":"<ignored>"}}` {
		t.Errorf("ignored = %s", got)
	}
	if compact(doc) == compact(ignored) {
		t.Error("ignorePaths changed its input")
	}
}

func TestSnapshotsMissingUpdateAndPrune(t *testing.T) {
	dir := t.TempDir()
	s := &Suite{SnapshotPath: filepath.Join(dir, SnapshotDir, "a.snap.json"), Steps: []Step{{ID: "one"}, {ID: "two"}}}
	snaps := OpenSnapshots(s)
	// Under CI a missing snapshot fails and nothing is written.
	f, written, err := snaps.check("one", map[string]any{"v": 1.0}, false, false)
	if err != nil || f == nil || written || !strings.Contains(f.Message, "--update") {
		t.Fatalf("missing under CI: %+v %v %v", f, written, err)
	}
	// Elsewhere it is written, and then holds.
	if f, written, _ = snaps.check("one", map[string]any{"v": 1.0}, false, true); f != nil || !written {
		t.Fatalf("missing on a workstation: %+v %v", f, written)
	}
	if err := snaps.put("gone", "old"); err != nil {
		t.Fatal(err)
	}
	if err := snaps.Save(false); err != nil {
		t.Fatal(err)
	}
	again := OpenSnapshots(s)
	if f, _, _ := again.check("one", map[string]any{"v": 1.0}, false, false); f != nil {
		t.Errorf("a stored snapshot failed: %+v", f)
	}
	f, _, _ = again.check("one", map[string]any{"v": 2.0}, false, false)
	if f == nil || !strings.Contains(f.Diff, `-  "v": 1`) || !strings.Contains(f.Diff, `+  "v": 2`) {
		t.Errorf("a changed result: %+v", f)
	}
	// --update rewrites and drops the snapshots of steps that are gone.
	if _, written, _ := again.check("one", map[string]any{"v": 2.0}, true, false); !written {
		t.Error("update did not write")
	}
	if err := again.Save(true); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.SnapshotPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != "{\n  \"one\": {\n    \"v\": 2\n  }\n}\n" {
		t.Errorf("snapshot file after update:\n%s", got)
	}
}

func TestSnapshotsCorruptFile(t *testing.T) {
	dir := t.TempDir()
	s := &Suite{SnapshotPath: filepath.Join(dir, "a.snap.json")}
	if err := os.WriteFile(s.SnapshotPath, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := OpenSnapshots(s).check("x", 1.0, false, true)
	if err == nil || !strings.Contains(err.Error(), "is not a snapshot file") {
		t.Errorf("err = %v", err)
	}
}

// An ignore in a call's structuredContent covers the text block that
// holds structuredContent as JSON (FastMCP and the Go SDK write one): the
// README's snapshot: {ignore: ["$.structuredContent.issued"]} failed on
// such a server with the same timestamp in $.content[0].text. The block
// is still compared, and kept as it came when nothing in
// structuredContent is ignored.
func TestSnapshotIgnoresCarryToTheMirroredText(t *testing.T) {
	result := func(text, issued string) any {
		return toDoc(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": false,
			"structuredContent": map[string]any{"city": "Paris", "issued": issued}})
	}
	mirror := func(issued string) any { return result(`{"city":"Paris","issued":"`+issued+`"}`, issued) }
	snap := func(doc any, ignore ...string) any {
		ignored, err := ignorePaths(doc, ignore)
		if err != nil {
			t.Fatal(err)
		}
		return ignoreMirrors(doc, ignored)
	}
	s := &Suite{SnapshotPath: filepath.Join(t.TempDir(), "a.snap.json"), Steps: []Step{{ID: "paris"}}}
	snaps := OpenSnapshots(s)
	if _, written, _ := snaps.check("paris", snap(mirror("t1"), "$.structuredContent.issued"), false, true); !written {
		t.Fatal("the snapshot was not written")
	}
	if f, _, _ := snaps.check("paris", snap(mirror("t2"), "$.structuredContent.issued"), false, false); f != nil {
		t.Errorf("another timestamp, ignored in structuredContent, failed:\n%s", f.Text())
	}
	if f, _, _ := snaps.check("paris", snap(result("Paris: sunny", "t3"), "$.structuredContent.issued"), false, false); f == nil || !strings.Contains(f.Diff, "Paris: sunny") {
		t.Errorf("a block that stopped holding structuredContent passed: %+v", f)
	}
	// Nothing ignored in structuredContent: the block is kept as it came.
	if got := compact(snap(mirror("t1"))); !strings.Contains(got, `"text":"{\"city\":\"Paris\",\"issued\":\"t1\"}"`) {
		t.Errorf("without ignores: %s", got)
	}
	// The block ignored by its own path stays "<ignored>".
	if got := compact(snap(mirror("t1"), "$.structuredContent.issued", "$.content[0].text")); !strings.Contains(got, `"text":"<ignored>"`) {
		t.Errorf("the block ignored itself: %s", got)
	}
}
