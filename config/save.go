package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Saved says what Save wrote.
type Saved struct {
	Path    string
	Created bool // the file did not exist before
	// OldHash and NewHash are the content hashes before and after (as
	// File.Hash): an approval of the old content can be carried over to
	// the new one when the person who approved it made the change.
	OldHash, NewHash string
	// Unset are the environment variables the written servers refer to
	// that are not set now: those servers will not start until they are.
	Unset []string
}

// Approval is the approval of the project file at path that this save
// carries to the content it wrote, and whether there is one: the file's
// new content is approved when the save created the file (the person's
// own command wrote every line of it, as export, import and add do) or
// when its old content was approved (the person changed approved
// content). Content nobody approved stays unapproved, and an unchanged
// file needs nothing. Every command that writes a project file (the
// command line's and the TUI's) asks here, so they cannot differ.
func (s Saved) Approval(path string, trusted func(File) bool) (File, bool) {
	switch {
	case s.Created:
	case s.OldHash == s.NewHash, !trusted(File{Path: path, Scope: ScopeProject, Hash: s.OldHash}):
		return File{}, false
	}
	return File{Path: path, Scope: ScopeProject, Hash: s.NewHash}, true
}

// Save validates the document and replaces the file with it atomically: a
// temporary file in the same directory, flushed to disk, renamed over the
// original (through a symbolic link to its target), with the original's
// permissions. It refuses, writing nothing, when the file changed since it
// was read (ErrChanged) or when a server it changed would not be a valid
// configuration (Errors). mcpdeck processes serialise their writes to one
// file with a lock in the state directory; other programs are caught by the
// content check.
func (d *Document) Save() (Saved, error) {
	out := Saved{Path: d.path, Created: !d.exists, OldHash: contentHash(d.data)}
	data := d.Bytes()
	if !d.Changed() {
		out.NewHash = out.OldHash
		return out, nil
	}
	unset, err := d.validate(data)
	if err != nil {
		return out, err
	}
	out.Unset = unset
	target := d.path
	if real, err := filepath.EvalSymlinks(d.path); err == nil {
		target = real
	}
	unlock, err := lockFile(target)
	if err != nil {
		return out, fmt.Errorf("saving %s: %w", d.path, err)
	}
	defer unlock()
	now, _, err := readForEdit(target)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return out, fmt.Errorf("saving %s: reading it again: %w", d.path, unwrapPathError(err))
	case exists != d.exists || !bytes.Equal(now, d.data):
		return out, fmt.Errorf("saving %s: %w; nothing was written: run the command again to edit the new content", d.path, ErrChanged)
	}
	if err := writeAtomic(target, data, d.mode); err != nil {
		return out, fmt.Errorf("saving %s: %w", d.path, err)
	}
	d.data, d.exists, d.touched = data, true, map[string]bool{}
	out.NewHash = contentHash(data)
	return out, nil
}

// validate checks data before it lands: it parses, it is still plain JSON
// when the file was (or is new), and every server the edit added or
// changed passes mcpdeck's own validation. Variables are not resolved
// against the environment here (a server may refer to a token set later),
// but those unset now are returned.
func (d *Document) validate(data []byte) ([]string, error) {
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("saving %s: the edit would make it invalid JSON (%s); nothing was written", d.path, err)
	}
	if d.standard && !root.IsStandard() && !d.whole {
		return nil, fmt.Errorf("saving %s: the edit would add comments or trailing commas to a plain JSON file; nothing was written", d.path)
	}
	if d.whole {
		errs, unset := CheckContent(d.path, data)
		if len(errs) > 0 {
			return nil, fmt.Errorf("saving %s: nothing was written: %w", d.path, errs)
		}
		return unset, nil
	}
	var names []string
	for name := range d.touched {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs Errors
	var unset []string
	for _, name := range names {
		v := root.Find(d.serverPtr(name))
		if v == nil {
			continue
		}
		e, err := entryOf(v)
		if err != nil {
			return nil, fmt.Errorf("saving %s: server %q: %w", d.path, name, err)
		}
		pos := positionOf(d.path, data, v.StartOffset)
		es, names := d.checkEntry(name, e, root, pos)
		errs = append(errs, es...)
		unset = append(unset, names...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("saving %s: nothing was written: %w", d.path, errs)
	}
	slices.Sort(unset)
	return slices.Compact(unset), nil
}

// CheckContent validates data as mcpdeck reads the file at path, without
// resolving variables against the environment (a server may refer to a
// token set later): every problem with its line and column, and the
// variables not set now.
func CheckContent(path string, data []byte) (Errors, []string) {
	var unset []string
	_, _, err := Parse(path, data, ScopeExplicit, checkOptions(path, &unset))
	var errs Errors
	if errors.As(err, &errs) {
		return errs, nil
	}
	if err != nil {
		return Errors{{Pos: Position{File: path}, Message: err.Error()}}, nil
	}
	slices.Sort(unset)
	return nil, slices.Compact(unset)
}

// checkOptions parse a file for validation: approved (its envFile is
// read), variables not set standing in with a value that still reads as a
// URL ("${env:BASE}/mcp" and a bare "${env:URL}" both parse), the names of
// those recorded in unset.
func checkOptions(path string, unset *[]string) LoadOptions {
	dir := filepath.Dir(path)
	return LoadOptions{
		ProjectDir: dir, UserConfigDir: dir, Approved: func(File) bool { return true },
		// A file serves whichever project mcpdeck runs in: a path under
		// ${workspaceFolder} (an envFile) is read there, not at save,
		// where there is no project.
		Vars: map[string]string{"workspaceFolder": "${workspaceFolder}", "workspaceFolderBasename": "${workspaceFolderBasename}"},
		LookupEnv: func(k string) (string, bool) {
			if v, ok := os.LookupEnv(k); ok {
				return v, true
			}
			if k != "HOME" && k != "XDG_CONFIG_HOME" {
				*unset = append(*unset, k)
			}
			return "http://unset.invalid", true
		},
	}
}

// CheckServer validates e (in mcpdeck's spelling) as server name of d, as
// Save would once it is put there: a batch (import, export) leaves out a
// server that would fail, instead of failing the whole file. The problems
// have no position: the entry is not in the file yet.
func (d *Document) CheckServer(name string, e Entry) Errors {
	errs, _ := d.checkEntry(name, e, d.root, Position{})
	return errs
}

// checkEntry validates one server as mcpdeck reads it, alone in a file with
// the document's inputs. Problems are reported at pos, the server's place
// in the file.
func (d *Document) checkEntry(name string, e Entry, root hujson.Value, pos Position) (Errors, []string) {
	if d.opts.Normalize != nil {
		e = d.opts.Normalize(e.Clone())
	}
	file := Entry{}
	if v := root.Find("/inputs"); v != nil {
		std := v.Clone()
		std.Standardize()
		file = append(file, Field{"inputs", std.Pack()})
	}
	file.Set("mcpServers", Entry{{name, mustMarshal(e)}})
	src := mustMarshal(file)
	var unset []string
	_, _, err := Parse(d.path, src, ScopeExplicit, checkOptions(d.path, &unset))
	var errs Errors
	if errors.As(err, &errs) {
		for i := range errs {
			errs[i].Pos = pos
		}
		return errs, unset
	}
	if err != nil {
		return Errors{{Pos: pos, Server: name, Message: err.Error()}}, unset
	}
	return nil, unset
}

// positionOf is the position of byte off of data, its column in
// characters.
func positionOf(path string, data []byte, off int) Position {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return Position{File: path, Line: bytes.Count(data[:off], []byte("\n")) + 1, Column: utf8.RuneCount(data[start:off]) + 1}
}

// lockFile takes mcpdeck's lock on writing path, kept in the state
// directory so no lock file is left next to a client's configuration.
func lockFile(path string) (func(), error) {
	dir, err := DefaultStateDir()
	if err != nil {
		return nil, err
	}
	dir = filepath.Join(dir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(path))
	return takeLock(filepath.Join(dir, hex.EncodeToString(sum[:8])+".lock"), "another mcpdeck process is writing it")
}

// writeAtomic replaces path with data: a crash leaves the old file or the
// new one, never half of one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	dirMode := fs.FileMode(0o755)
	if mode&0o077 == 0 {
		dirMode = 0o700
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".mcpdeck-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	merr := tmp.Chmod(mode)
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, merr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync() // the rename itself survives a crash; not every system can sync a directory
		f.Close()
	}
	return nil
}
