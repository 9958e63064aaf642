package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
)

// eraFileName is the era memory inside the state directory.
const eraFileName = "eras.json"

// maxRememberedEras bounds eras.json: the servers seen longest ago are
// forgotten first (they are probed again if they come back).
const maxRememberedEras = 512

// ErrEraMemory is wrapped by every failure to read or write the era memory.
var ErrEraMemory = errors.New("era memory")

// EraMemory remembers which protocol era each server spoke, by the
// server's identity (see eraIdentity), so the next connection starts in
// that era: a server remembered legacy gets initialize at once (no
// server/discover probe, no fallback wait), one remembered modern gets
// server/discover and all of its startup timeout to answer it. A remembered
// era that fails to negotiate is forgotten and the server probed afresh.
//
// With a file (OpenEraMemory) the memory outlives the process and is shared
// by every mcpdeck of the user: eras.json in the state directory, changed
// under the same lock and atomic rename as trust.json, so parallel runs
// never lose each other's entries. Entries are keyed by a SHA-256 of the
// identity: the file never holds a command line, an argument or a URL,
// which may carry secrets. It is safe for concurrent use.
type EraMemory struct {
	path string // "" when it lives in this process only
	mu   sync.Mutex
	// eras is what this process knows, by identity hash; guarded by mu. It
	// is merged with the file on every write.
	eras map[string]RememberedEra
}

// RememberedEra is one server's entry in the era memory.
type RememberedEra struct {
	Era     mcp.Era
	Version string    // the revision spoken
	Server  string    // the name it was configured under (for people reading the file)
	Seen    time.Time // when it last negotiated that era
}

// rememberedJSON is an entry of eras.json.
type rememberedJSON struct {
	Era     string    `json:"era"`
	Version string    `json:"version,omitempty"`
	Server  string    `json:"server,omitempty"`
	Seen    time.Time `json:"seen"`
}

// eraFile is eras.json on disk.
type eraFile struct {
	Eras map[string]rememberedJSON `json:"eras"`
}

// NewEraMemory returns an era memory that lives as long as this process
// (the checker's, and a controller's when Options.Eras is nil).
func NewEraMemory() *EraMemory { return &EraMemory{eras: map[string]RememberedEra{}} }

// OpenEraMemory opens the era memory kept in dir (config.DefaultStateDir
// when empty). A missing file is an empty memory; nothing is written until
// the first era is learnt. A file that cannot be read still gives a usable,
// empty memory, with an error that says so: the next era learnt replaces
// the file.
func OpenEraMemory(dir string) (*EraMemory, error) {
	if dir == "" {
		d, err := config.DefaultStateDir()
		if err != nil {
			return NewEraMemory(), fmt.Errorf("%w: %w", ErrEraMemory, err)
		}
		dir = d
	}
	m := &EraMemory{path: filepath.Join(dir, eraFileName), eras: map[string]RememberedEra{}}
	data, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err == nil {
		m.eras, err = decodeEras(data)
	}
	if err != nil {
		m.eras = map[string]RememberedEra{}
		return m, fmt.Errorf("reading %s: %w: %w (servers are probed afresh; the file is replaced when an era is learnt)", m.path, ErrEraMemory, err)
	}
	return m, nil
}

// Path is the memory's file, "" when it lives in this process only.
func (m *EraMemory) Path() string { return m.path }

// decodeEras reads eras.json, skipping entries that name no era.
func decodeEras(data []byte) (map[string]RememberedEra, error) {
	out := map[string]RememberedEra{}
	if len(data) == 0 {
		return out, nil
	}
	var f eraFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	for k, e := range f.Eras {
		var era mcp.Era
		switch e.Era {
		case mcp.Legacy.String():
			era = mcp.Legacy
		case mcp.Modern.String():
			era = mcp.Modern
		default:
			continue
		}
		out[k] = RememberedEra{Era: era, Version: e.Version, Server: e.Server, Seen: e.Seen}
	}
	return out, nil
}

// encodeEras writes eras.json, keeping the maxRememberedEras seen last.
func encodeEras(eras map[string]RememberedEra) ([]byte, error) {
	f := eraFile{Eras: map[string]rememberedJSON{}}
	for _, k := range newestKeys(eras, maxRememberedEras, func(e RememberedEra) time.Time { return e.Seen }) {
		e := eras[k]
		f.Eras[k] = rememberedJSON{Era: e.Era.String(), Version: e.Version, Server: e.Server, Seen: e.Seen.UTC().Truncate(time.Second)}
	}
	return encodeStateFile(f)
}

// recall returns the era cfg's server was remembered speaking.
func (m *EraMemory) recall(cfg config.Server) (RememberedEra, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.eras[eraIdentity(cfg)]
	return e, ok
}

// refreshAfter is how old an unchanged entry gets before a connection
// writes it again (its Seen decides which entries are dropped first).
const refreshAfter = 24 * time.Hour

// recall is what the era memory says of the session's server, nothing
// when the session was opened fresh (its remembered era just failed).
func (s *session) recall() (RememberedEra, bool) {
	if s.fresh {
		return RememberedEra{}, false
	}
	return s.c.eras.recall(s.cfg)
}

// remember records that cfg's server spoke version (of its era). An entry
// that says the same and was written lately is left as it is, so
// reconnects do not rewrite the file.
func (m *EraMemory) remember(cfg config.Server, version string) error {
	era := mcp.EraOf(version)
	if era == mcp.Unknown {
		return nil
	}
	key := eraIdentity(cfg)
	e := RememberedEra{Era: era, Version: version, Server: cfg.Name, Seen: time.Now()}
	m.mu.Lock()
	old, ok := m.eras[key]
	m.mu.Unlock()
	if ok && old.Era == e.Era && old.Version == e.Version && old.Server == e.Server && e.Seen.Sub(old.Seen) < refreshAfter {
		return nil
	}
	return m.change(key, &e)
}

// forget drops what is remembered of cfg's server.
func (m *EraMemory) forget(cfg config.Server) error { return m.change(eraIdentity(cfg), nil) }

// change sets (e non-nil) or deletes the entry for key, here and in the
// file, merged under the file's lock with what other processes wrote.
func (m *EraMemory) change(key string, e *RememberedEra) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	apply := func(eras map[string]RememberedEra) {
		if e == nil {
			delete(eras, key)
		} else {
			eras[key] = *e
		}
	}
	apply(m.eras)
	if m.path == "" {
		return nil
	}
	err := config.UpdateStateFile(m.path, func(old []byte) ([]byte, error) {
		eras, err := decodeEras(old)
		if err != nil {
			eras = map[string]RememberedEra{} // unreadable: replaced, as OpenEraMemory said
		}
		apply(eras)
		m.eras = eras
		return encodeEras(eras)
	})
	if err != nil {
		return fmt.Errorf("saving the era of a server to %s: %w: %w", m.path, ErrEraMemory, err)
	}
	return nil
}

// eraIdentity is what a server's era is remembered by: its identity
// (serverIdentity) with a remote server known by its URL's origin, as the
// 2026-07-28 revision says an era is cached per origin.
func eraIdentity(cfg config.Server) string { return serverIdentity(cfg, false) }
