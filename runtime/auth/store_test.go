package auth

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zalando/go-keyring"
)

func roundTrip(t *testing.T, s *Store) {
	t.Helper()
	rec := tokenRecord{AccessToken: "at-secret-value", RefreshToken: "rt-secret-value", Resource: "https://h/mcp"}
	if err := s.put("token a https://h/mcp", &rec); err != nil {
		t.Fatal(err)
	}
	var got tokenRecord
	if found, err := s.get("token a https://h/mcp", &got); err != nil || !found || got.AccessToken != rec.AccessToken || got.RefreshToken != rec.RefreshToken {
		t.Fatalf("get = %+v, %v, %v", got, found, err)
	}
	if err := s.delete("token a https://h/mcp"); err != nil {
		t.Fatal(err)
	}
	if found, err := s.get("token a https://h/mcp", &got); err != nil || found {
		t.Fatalf("after delete: found=%v err=%v", found, err)
	}
	if err := s.delete("token a https://h/mcp"); err != nil {
		t.Fatalf("deleting a missing entry: %v", err)
	}
}

// The keyring tests inject a keyring of their own: go-keyring's MockInit
// replaces the process's provider, which races with every parallel test.
func TestStoreKeyring(t *testing.T) {
	t.Parallel()
	kr := mapKeyring{}
	s, err := OpenStore(StoreOptions{Dir: t.TempDir(), Keyring: kr})
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind() != StorageKeyring || s.Where() != "OS keyring" {
		t.Fatalf("kind %q where %q, want the keyring", s.Kind(), s.Where())
	}
	roundTrip(t, s)
	// The entry really is in the keyring.
	if err := s.put("k", map[string]string{"v": "1"}); err != nil {
		t.Fatal(err)
	}
	if v, err := kr.Get(keyringService, "k"); err != nil || v != `{"v":"1"}` {
		t.Fatalf("keyring holds %q, %v", v, err)
	}
}

func TestStoreFallsBackToFile(t *testing.T) {
	t.Parallel()
	unreachable := brokenKeyring{errors.New("org.freedesktop.DBus.Error.ServiceUnknown")}
	dir := filepath.Join(t.TempDir(), "state", "mcpdeck")
	s, err := OpenStore(StoreOptions{Dir: dir, Keyring: unreachable})
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind() != StorageFile || s.Where() != filepath.Join(dir, storeFile) {
		t.Fatalf("kind %q where %q, want the file", s.Kind(), s.Where())
	}
	roundTrip(t, s)
	if err := s.put("k", "v"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Where())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
	// A forced keyring that is unreachable is an error, not a silent file.
	if _, err := OpenStore(StoreOptions{Dir: dir, Kind: StorageKeyring, Keyring: unreachable}); !errors.Is(err, ErrStorage) {
		t.Fatalf("forced keyring: %v", err)
	}
}

func TestStoreKindFromEnvironment(t *testing.T) {
	t.Setenv(StorageEnv, "file")
	s, err := OpenStore(StoreOptions{Dir: t.TempDir(), Keyring: mapKeyring{}})
	if err != nil || s.Kind() != StorageFile {
		t.Fatalf("OpenStore = %v, %v; want the file", s, err)
	}
	t.Setenv(StorageEnv, "cloud")
	if _, err := OpenStore(StoreOptions{Dir: t.TempDir()}); !errors.Is(err, ErrStorage) {
		t.Fatalf("bad %s: %v", StorageEnv, err)
	}
}

func TestStoreTightensAnExistingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(StoreOptions{Dir: dir, Kind: StorageFile})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v, want 0700", di.Mode().Perm())
	}
}

// A keyring cannot be listed: the store keeps an index of its token keys,
// so Tokens lists what is stored (auth status shows the --url servers'
// tokens by it), and a deleted token leaves it.
func TestStoreListsTokensInTheKeyringAndTheFile(t *testing.T) {
	t.Parallel()
	kr, err := OpenStore(StoreOptions{Dir: t.TempDir(), Keyring: mapKeyring{}})
	if err != nil {
		t.Fatal(err)
	}
	file, err := OpenStore(StoreOptions{Dir: t.TempDir(), Kind: StorageFile})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{kr, file} {
		a := Target{Name: "adhoc", URL: "https://a.example/mcp"}
		b := Target{Name: "work", URL: "https://b.example/mcp"}
		for _, tg := range []Target{b, a, a} {
			if err := s.put(tg.key(), &tokenRecord{AccessToken: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.put("registration https://issuer", map[string]string{"v": "1"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Tokens()
		if err != nil || len(got) != 2 || got[0] != (StoredToken{"adhoc", "https://a.example/mcp"}) || got[1] != (StoredToken{"work", "https://b.example/mcp"}) {
			t.Fatalf("%s: Tokens = %+v, %v", s.Kind(), got, err)
		}
		if err := s.delete(b.key()); err != nil {
			t.Fatal(err)
		}
		if got, err = s.Tokens(); err != nil || len(got) != 1 || got[0].Name != "adhoc" {
			t.Fatalf("%s: after delete, Tokens = %+v, %v", s.Kind(), got, err)
		}
	}
}

// mapKeyring is a working keyring of a test's own.
type mapKeyring map[string]string

func (k mapKeyring) Set(s, u, p string) error { k[s+"\x00"+u] = p; return nil }
func (k mapKeyring) Get(s, u string) (string, error) {
	if v, ok := k[s+"\x00"+u]; ok {
		return v, nil
	}
	return "", keyring.ErrNotFound
}
func (k mapKeyring) Delete(s, u string) error { delete(k, s+"\x00"+u); return nil }
func (k mapKeyring) DeleteAll(string) error   { clear(k); return nil }

// brokenKeyring is a keyring whose service cannot be reached.
type brokenKeyring struct{ err error }

func (k brokenKeyring) Set(string, string, string) error   { return k.err }
func (k brokenKeyring) Get(string, string) (string, error) { return "", k.err }
func (k brokenKeyring) Delete(string, string) error        { return k.err }
func (k brokenKeyring) DeleteAll(string) error             { return k.err }
