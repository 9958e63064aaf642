package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines that are not JSON, or nest deeper than the decoder goes, are
// skipped, counted, and said where: they used to vanish without a word
// (counted as undecodable, which nothing showed).
func TestSkippedLinesAreCountedAndReported(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "ui", "testdata", "replay-demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	deep := `{"seq":99,"mono":1,"kind":"LogMessage","ev":{"Data":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}}\n"
	// After the header: a line of garbage (line 3) and one too deep (line 5).
	mangled := append([]string{lines[0], lines[1], "not json at all\n", lines[2], deep}, lines[3:]...)
	path := filepath.Join(t.TempDir(), "mangled.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(mangled, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ReadFile(filepath.Join("..", "..", "ui", "testdata", "replay-demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Skipped != 2 || len(rec.Entries) != len(whole.Entries) {
		t.Fatalf("skipped %d lines and read %d entries; want 2 and the %d of the whole file", rec.Skipped, len(rec.Entries), len(whole.Entries))
	}
	if p := rec.Problems(); !strings.Contains(p, "2 lines skipped: line 3 (not JSON), line 5 (nested too deeply)") {
		t.Fatalf("problems %q", p)
	}
	if p := whole.Problems(); p != "" {
		t.Fatalf("a whole recording has problems %q", p)
	}
}
