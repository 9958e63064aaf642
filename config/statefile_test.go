package config

import (
	"os"
	"path/filepath"
	"testing"
)

// An update that returns what the file already holds writes nothing: a
// one-shot command updates the era memory and the tool pins on every run,
// and two fsyncs a file sat between its listing and its call.
func TestUpdateStateFileUnchangedWritesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "eras.json")
	same := func([]byte) ([]byte, error) { return []byte(`{"eras":{}}`), nil }
	if err := UpdateStateFile(path, same); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := UpdateStateFile(path, same); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the file was replaced although its content did not change")
	}
	// A change is still written.
	if err := UpdateStateFile(path, func([]byte) ([]byte, error) { return []byte(`{"eras":{"x":{}}}`), nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"eras":{"x":{}}}` {
		t.Errorf("after a change: %s", got)
	}
}
