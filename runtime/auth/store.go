package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/zalando/go-keyring"

	"mcpdeck/config"
	"mcpdeck/internal/cause"
)

// StorageKind says where a Store keeps tokens.
type StorageKind string

// The storage kinds.
const (
	// StorageKeyring is the OS keyring: macOS Keychain, the Secret Service
	// (GNOME Keyring, KWallet) on Linux, Windows Credential Manager.
	StorageKeyring StorageKind = "keyring"
	// StorageFile is the fallback where no keyring is reachable (a server
	// without a desktop session): one JSON file, mode 0600, in a 0700
	// directory under $XDG_STATE_HOME/mcpdeck.
	StorageFile StorageKind = "file"
)

// StorageEnv forces a storage kind ("keyring" or "file"); tests and
// headless hosts whose keyring prompts set it to "file".
const StorageEnv = "MCPDECK_AUTH_STORAGE"

// keyringService is the service name of mcpdeck's keyring entries.
const keyringService = "mcpdeck"

// storeFile is the fallback file's name in the state directory.
const storeFile = "oauth.json"

// StoreOptions configure OpenStore.
type StoreOptions struct {
	// Dir holds the fallback file; "" means config.DefaultStateDir().
	Dir string
	// Keyring is the keyring to use; nil means the OS keyring through
	// github.com/zalando/go-keyring (whose keyring.MockInit tests use).
	Keyring keyring.Keyring
	// Kind forces a kind; "" means the keyring when reachable, else the
	// file, or what $MCPDECK_AUTH_STORAGE says.
	Kind StorageKind
}

// Store keeps tokens and client registrations: in the OS keyring when one
// is reachable, else in a private file. It is safe for concurrent use; the
// file is replaced atomically, so another mcpdeck process never reads half
// of it.
type Store struct {
	mu   sync.Mutex // serialises file read-modify-write and keyring calls
	kind StorageKind
	kr   keyring.Keyring // StorageKeyring only
	path string          // StorageFile only
}

// osKeyring is go-keyring's package-level provider as a keyring.Keyring.
type osKeyring struct{}

func (osKeyring) Set(s, u, p string) error        { return keyring.Set(s, u, p) }
func (osKeyring) Get(s, u string) (string, error) { return keyring.Get(s, u) }
func (osKeyring) Delete(s, u string) error        { return keyring.Delete(s, u) }
func (osKeyring) DeleteAll(s string) error        { return keyring.DeleteAll(s) }

// OpenStore picks the storage: the keyring if a probe read reaches it,
// else the file. It fails only when neither is usable.
func OpenStore(opts StoreOptions) (*Store, error) {
	kind := opts.Kind
	if kind == "" {
		kind = StorageKind(os.Getenv(StorageEnv))
	}
	switch kind {
	case "", StorageKeyring, StorageFile:
	default:
		return nil, fmt.Errorf("opening the token store: %w: %s=%q; use %q or %q", ErrStorage, StorageEnv, kind, StorageKeyring, StorageFile)
	}
	kr := opts.Keyring
	if kr == nil {
		kr = osKeyring{}
	}
	if kind != StorageFile {
		_, err := kr.Get(keyringService, "probe")
		if err == nil || errors.Is(err, keyring.ErrNotFound) {
			return &Store{kind: StorageKeyring, kr: kr}, nil
		}
		if kind == StorageKeyring {
			return nil, fmt.Errorf("opening the OS keyring: %w: %v; unset %s to fall back to a file", ErrStorage, err, StorageEnv)
		}
	}
	dir := opts.Dir
	if dir == "" {
		d, err := config.DefaultStateDir()
		if err != nil {
			return nil, fmt.Errorf("opening the token store: %w: %v", ErrStorage, err)
		}
		dir = d
	}
	return &Store{kind: StorageFile, path: filepath.Join(dir, storeFile)}, nil
}

// Kind reports where tokens are kept.
func (s *Store) Kind() StorageKind { return s.kind }

// Where names the storage for people: "OS keyring" or the file's path.
func (s *Store) Where() string {
	if s.kind == StorageKeyring {
		return "OS keyring"
	}
	return s.path
}

// get loads the entry under key into v; found is false when there is none.
func (s *Store) get(key string, v any) (found bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var raw []byte
	if s.kind == StorageKeyring {
		str, err := s.kr.Get(keyringService, key)
		if errors.Is(err, keyring.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading %q from the OS keyring: %w: %v", key, ErrStorage, err)
		}
		raw = []byte(str)
	} else {
		all, err := s.readFile()
		if err != nil {
			return false, err
		}
		r, ok := all[key]
		if !ok {
			return false, nil
		}
		raw = r
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("reading %q from %s: %w: the entry is corrupt (%v); log in again", key, s.Where(), ErrStorage, err)
	}
	return true, nil
}

// put stores v under key.
func (s *Store) put(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("storing %q: %w: %v", key, ErrStorage, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kind == StorageKeyring {
		if err := s.kr.Set(keyringService, key, string(raw)); err != nil {
			return fmt.Errorf("storing %q in the OS keyring: %w: %v", key, ErrStorage, err)
		}
		return s.index(key, true)
	}
	all, err := s.readFile()
	if err != nil {
		return err
	}
	all[key] = raw
	return s.writeFile(all)
}

// delete removes key; a missing entry is not an error.
func (s *Store) delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kind == StorageKeyring {
		err := s.kr.Delete(keyringService, key)
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("deleting %q from the OS keyring: %w: %v", key, ErrStorage, err)
		}
		return s.index(key, false)
	}
	all, err := s.readFile()
	if err != nil {
		return err
	}
	if _, ok := all[key]; !ok {
		return nil
	}
	delete(all, key)
	return s.writeFile(all)
}

// tokenPrefix starts the key of every stored token (Target.key).
const tokenPrefix = "token "

// indexKey is the keyring entry listing the keyring's token keys: a
// keyring cannot be listed, and auth status lists the stored tokens of
// ad-hoc servers, which no configuration names. A file is its own index.
const indexKey = "index"

// index adds key to the keyring's index, or removes it; s.mu is held.
// Only token keys are indexed.
func (s *Store) index(key string, add bool) error {
	if !strings.HasPrefix(key, tokenPrefix) {
		return nil
	}
	keys, err := s.indexed()
	if err != nil {
		return err
	}
	has := slices.Contains(keys, key)
	switch {
	case add && !has:
		keys = append(keys, key)
	case !add && has:
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == key })
	default:
		return nil
	}
	raw, _ := json.Marshal(keys)
	if err := s.kr.Set(keyringService, indexKey, string(raw)); err != nil {
		return fmt.Errorf("storing the token index in the OS keyring: %w: %v", ErrStorage, err)
	}
	return nil
}

// indexed reads the keyring's index; s.mu is held.
func (s *Store) indexed() ([]string, error) {
	str, err := s.kr.Get(keyringService, indexKey)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the token index from the OS keyring: %w: %v", ErrStorage, err)
	}
	var keys []string
	_ = json.Unmarshal([]byte(str), &keys) // a corrupt index lists nothing; the tokens still work
	return keys, nil
}

// StoredToken names a stored token: the server name it was stored for
// and its resource URL (canonical).
type StoredToken struct {
	Name, URL string
}

// Tokens lists the stored tokens by name and URL, sorted. In the keyring
// it lists those stored since mcpdeck kept an index there.
func (s *Store) Tokens() ([]StoredToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	if s.kind == StorageKeyring {
		k, err := s.indexed()
		if err != nil {
			return nil, err
		}
		keys = k
	} else {
		all, err := s.readFile()
		if err != nil {
			return nil, err
		}
		for k := range all {
			keys = append(keys, k)
		}
	}
	var out []StoredToken
	for _, k := range keys {
		name, u, ok := strings.Cut(strings.TrimPrefix(k, tokenPrefix), " ")
		if strings.HasPrefix(k, tokenPrefix) && ok {
			out = append(out, StoredToken{Name: name, URL: u})
		}
	}
	slices.SortFunc(out, func(a, b StoredToken) int { return strings.Compare(a.Name+" "+a.URL, b.Name+" "+b.URL) })
	return out, nil
}

func (s *Store) readFile() (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w: %v", s.path, ErrStorage, cause.Of(err))
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("reading %s: %w: not valid JSON (%v); delete the file and log in again", s.path, ErrStorage, err)
	}
	return all, nil
}

// writeFile replaces the file atomically: a temporary file created 0600 in
// the same 0700 directory, then renamed over it.
func (s *Store) writeFile(all map[string]json.RawMessage) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w: %v", dir, ErrStorage, cause.Of(err))
	}
	// The state directory may predate us with looser permissions.
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restricting %s: %w: %v", dir, ErrStorage, cause.Of(err))
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w: %v", s.path, ErrStorage, err)
	}
	tmp, err := os.CreateTemp(dir, storeFile+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w: %v", s.path, ErrStorage, cause.Of(err))
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w: %v", s.path, ErrStorage, cause.Of(err))
	}
	return nil
}
