package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	unlock, err := takeLock(path+".lock", "another mcpdeck process holds the lock")
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := update(old)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(old, data) {
		// Nothing changed: no write, no fsync. A one-shot command updates
		// the era memory and the tool pins on every run, before its call.
		return nil
	}
	return writeAtomic(path, data, 0o600)
}

// takeLock takes the advisory lock held in file (flock on Unix, LockFileEx
// on Windows), waiting at most lockTimeout; busy says who holds it when the
// wait runs out. It returns the unlock.
func takeLock(file, busy string) (func(), error) {
	fl := flock.New(file, flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if err == nil && !ok {
		err = errors.New(busy)
	}
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w (if no other mcpdeck is running, delete the lock file)", fl.Path(), err)
	}
	return func() { _ = fl.Unlock() }, nil
}
