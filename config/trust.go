package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// trustFileName is the approvals file inside the state directory.
const trustFileName = "trust.json"

// TrustStore remembers which project files the user approved. A project
// file runs commands someone else may have written, so its servers start
// only after approval; the approval is tied to the file's content hash, so
// any edit to content never approved asks again. A file keeps the last few
// contents approved for it (maxEarlier besides the newest): switching a
// branch and back, or undoing an edit, restores content the user already
// approved, and is not asked about again. It is safe for concurrent use, also across processes:
// Trust holds an advisory lock on trust.json.lock (flock on Unix, LockFileEx
// on Windows) while it reads, merges and atomically replaces trust.json, so
// approvals written by parallel mcpdeck processes are never lost. Readers
// need no lock: the file is only ever replaced whole, by rename.
type TrustStore struct {
	path string
	mu   sync.Mutex
	// approved maps a file path to its approval; guarded by mu.
	approved map[string]approval
}

// approval is one entry of trust.json: the content approved last, and
// the contents approved before it, newest first (absent in files written
// before they were kept).
type approval struct {
	SHA256     string    `json:"sha256"`
	ApprovedAt time.Time `json:"approvedAt"`
	Earlier    []string  `json:"earlier,omitempty"`
}

// maxEarlier bounds the earlier contents an approval keeps per file.
const maxEarlier = 4

// approves reports whether hash is one of a's contents.
func (a approval) approves(hash string) bool {
	return hash != "" && (a.SHA256 == hash || slices.Contains(a.Earlier, hash))
}

// then is the approval of hash after a: hash newest, a's own contents
// (but hash) kept before it, the oldest beyond maxEarlier dropped.
func (a approval) then(hash string, at time.Time) approval {
	next := approval{SHA256: hash, ApprovedAt: at}
	for _, h := range append([]string{a.SHA256}, a.Earlier...) {
		if h != "" && h != hash && !slices.Contains(next.Earlier, h) && len(next.Earlier) < maxEarlier {
			next.Earlier = append(next.Earlier, h)
		}
	}
	return next
}

// trustFile is trust.json on disk.
type trustFile struct {
	Approved map[string]approval `json:"approved"`
}

// DefaultStateDir is where mcpdeck keeps state: $XDG_STATE_HOME/mcpdeck,
// else ~/.local/state/mcpdeck.
func DefaultStateDir() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "mcpdeck"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the state directory: %w: %w", ErrTrustStore, err)
	}
	return filepath.Join(home, ".local", "state", "mcpdeck"), nil
}

// OpenTrustStore opens the approvals kept in dir (DefaultStateDir when
// empty). A missing file means nothing is approved yet; nothing is created
// until the first Trust.
func OpenTrustStore(dir string) (*TrustStore, error) {
	if dir == "" {
		d, err := DefaultStateDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	t := &TrustStore{path: filepath.Join(dir, trustFileName)}
	approved, err := t.read()
	if err != nil {
		return nil, err
	}
	t.approved = approved
	return t, nil
}

// Path is the approvals file.
func (t *TrustStore) Path() string { return t.path }

func (t *TrustStore) read() (map[string]approval, error) {
	data, err := os.ReadFile(t.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading approvals %s: %w: %w", t.path, ErrTrustStore, err)
	}
	return t.decode(data)
}

// decode reads trust.json's content; nil is an empty store.
func (t *TrustStore) decode(data []byte) (map[string]approval, error) {
	if data == nil {
		return map[string]approval{}, nil
	}
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("reading approvals %s: %w: %w (delete the file to approve project files again)", t.path, ErrTrustStore, err)
	}
	if f.Approved == nil {
		f.Approved = map[string]approval{}
	}
	return f.Approved, nil
}

// Trusted reports whether f's servers may start: files outside project
// scope always may; a project file only when its current content is one
// of the contents approved for it (the newest, or one of the maxEarlier
// before).
func (t *TrustStore) Trusted(f File) bool {
	if f.Scope != ScopeProject {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.approved[f.Path]
	return ok && a.approves(f.Hash)
}

// Trust records the approval of f's current content.
func (t *TrustStore) Trust(f File) error {
	if f.Scope != ScopeProject {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var approved map[string]approval
	err := UpdateStateFile(t.path, func(old []byte) ([]byte, error) {
		// Merged with what is on disk under the lock, so an approval another
		// process just wrote is not lost.
		var err error
		if approved, err = t.decode(old); err != nil {
			return nil, err
		}
		approved[f.Path] = approved[f.Path].then(f.Hash, time.Now().UTC().Truncate(time.Second))
		data, err := json.MarshalIndent(trustFile{Approved: approved}, "", "  ")
		return append(data, '\n'), err
	})
	switch {
	case errors.Is(err, ErrTrustStore):
		return err
	case err != nil:
		return fmt.Errorf("saving approval to %s: %w: %w", t.path, ErrTrustStore, err)
	}
	t.approved = approved
	return nil
}

// Untrusted returns the project files that define servers and whose
// current content is not approved yet; their servers must not start.
func (c *Config) Untrusted(t *TrustStore) []File {
	var out []File
	for _, f := range c.Files {
		if f.Scope == ScopeProject && len(f.Servers) > 0 && !t.Trusted(f) {
			out = append(out, f)
		}
	}
	return out
}
