package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockTimeout bounds the wait for another process's lock on a state file.
// Holders keep it for one read and one rename, so a wait this long means a
// stuck process, not a busy one.
const lockTimeout = 10 * time.Second

// UpdateStateFile is a read-merge-write cycle on a file in the state
// directory that several mcpdeck processes may change at once (trust.json,
// eras.json). It holds an advisory lock on path+".lock" (flock on Unix,
// LockFileEx on Windows; the lock lives in its own file because path is
// replaced by rename, which would orphan a lock held on it), calls update
// with path's current content (nil when there is none), and atomically
// replaces path with what update returns, so a crash mid-write never leaves
// a torn file and a concurrent writer's change is never lost. Readers need
// no lock. The directory is created 0700 and the file is written 0600.
func UpdateStateFile(path string, update func(old []byte) ([]byte, error)) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fl := flock.New(path+".lock", flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if err == nil && !ok {
		err = errors.New("another mcpdeck process holds the lock")
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w (if no other mcpdeck is running, delete the lock file)", fl.Path(), err)
	}
	defer func() { _ = fl.Unlock() }()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := update(old)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename.
func writeAtomic(path string, data []byte) error {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(base, ext)+"-*"+ext) // .trust-123.json
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
