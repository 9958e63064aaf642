package record

import (
	"errors"
	"fmt"
	"os"
)

// rotFile is the recording file: created 0600 (it holds what servers
// said, which may be sensitive even after scrubbing), appended to with one
// write per batch of whole lines, and rotated to PATH.1 (one kept) when
// the next batch would take it past max. Only the recorder goroutine uses it.
type rotFile struct {
	path string
	max  int64 // 0: unbounded
	f    *os.File
	size int64
	// rotations counts how often the file was rotated.
	rotations int
}

func createFile(path string, max int64) (*rotFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the recording %s: %w (give a writable path)", path, err)
	}
	// An existing file keeps its mode on O_TRUNC: make sure it is private.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("creating the recording %s: %w", path, err)
	}
	return &rotFile{path: path, max: max, f: f}, nil
}

// write appends whole lines in one call, so a crash leaves at most the
// tail of one line behind, which readers skip.
func (r *rotFile) write(b []byte) error {
	n, err := r.f.Write(b)
	r.size += int64(n)
	if err != nil {
		return fmt.Errorf("writing the recording %s: %w", r.path, err)
	}
	return nil
}

// rotate moves the file to PATH.1, replacing an older one, and starts a
// fresh PATH.
func (r *rotFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("rotating the recording %s: %w", r.path, err)
	}
	if err := os.Rename(r.path, r.path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("rotating the recording %s: %w", r.path, err)
	}
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("rotating the recording %s: %w", r.path, err)
	}
	r.f, r.size = f, 0
	r.rotations++
	return nil
}

func (r *rotFile) close() error { return r.f.Close() }
