package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
)

// Snapshots of a suite live beside it, in __snapshots__/NAME.snap.json:
// one JSON object whose keys are the steps' keys (id, else step-N) and
// whose values are the steps' result documents as last accepted, with
// ignored paths replaced by "<ignored>". The file is pretty-printed with
// sorted keys, so a changed result reads as a small diff in review.

// SnapshotDir is the folder of snapshots beside a suite.
const SnapshotDir = "__snapshots__"

func snapshotPath(suitePath string) string {
	base := strings.TrimSuffix(filepath.Base(suitePath), Ext)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return filepath.Join(filepath.Dir(suitePath), SnapshotDir, base+".snap.json")
}

// Snapshots is one suite's snapshot file, shared by the runs of the suite
// (each protocol); it is safe for concurrent use.
type Snapshots struct {
	path string

	mu      sync.Mutex
	loaded  bool
	entries map[string]any
	dirty   bool
	keep    map[string]bool // keys of the suite's steps, for pruning on update
}

// OpenSnapshots names a suite's snapshot file; it is read on first use.
func OpenSnapshots(s *Suite) *Snapshots {
	keep := map[string]bool{}
	for i := range s.Steps {
		keep[s.Steps[i].Key()] = true
	}
	return &Snapshots{path: s.SnapshotPath, keep: keep}
}

// Path is the snapshot file.
func (s *Snapshots) Path() string { return s.path }

func (s *Snapshots) load() error {
	if s.loaded {
		return nil
	}
	s.entries = map[string]any{}
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading snapshots: %w", err)
	default:
		if err := json.Unmarshal(data, &s.entries); err != nil {
			return fmt.Errorf("%s is not a snapshot file (a JSON object of step results): %w; delete it and run with --update", s.path, err)
		}
	}
	s.loaded = true
	return nil
}

// check compares doc with the stored snapshot of key. With update, or
// when there is none and missing snapshots may be written, it stores doc
// instead and reports written.
func (s *Snapshots) check(key string, doc any, update, writeMissing bool) (f *Failure, written bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, false, err
	}
	old, ok := s.entries[key]
	switch {
	case update || (!ok && writeMissing):
		if !ok || !equalJSON(old, doc) {
			s.entries[key] = doc
			s.dirty = true
		}
		return nil, true, nil
	case !ok:
		return &Failure{Expectation: "snapshot", Message: fmt.Sprintf("no snapshot %q in %s; run mcpdeck test --update to write it", key, s.path)}, false, nil
	case equalJSON(old, doc):
		return nil, false, nil
	}
	return &Failure{Expectation: "snapshot", Message: fmt.Sprintf("the result differs from snapshot %q (%s); if the change is intended, run mcpdeck test --update", key, s.path),
		Diff: Diff("snapshot", "live", old, doc)}, false, nil
}

// put stores a snapshot (the TUI's T and --from-recording).
func (s *Snapshots) put(key string, doc any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return err
	}
	s.entries[key] = doc
	s.dirty = true
	return nil
}

// Save writes the file if a run changed it. With prune, entries of steps
// the suite no longer has are dropped (an --update run).
func (s *Snapshots) Save(prune bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prune && s.loaded {
		for k := range s.entries {
			if !s.keep[k] {
				delete(s.entries, k)
				s.dirty = true
			}
		}
	}
	if !s.dirty {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.entries); err != nil {
		return fmt.Errorf("encoding snapshots: %w", err)
	}
	if err := writeAtomic(s.path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing snapshots: %w", err)
	}
	s.dirty = false
	return nil
}

// writeAtomic replaces path with data through a temporary file in the
// same folder, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Diff is a unified diff of two values as indented JSON with sorted keys.
func Diff(oldLabel, newLabel string, old, new any) string {
	return strings.TrimRight(udiff.Unified(oldLabel, newLabel, pretty(old)+"\n", pretty(new)+"\n"), "\n")
}
