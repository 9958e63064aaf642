package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
)

// toolsFileName is the operator's tool decisions inside the state directory.
const toolsFileName = "tools.json"

// Bounds of tools.json: the servers seen longest ago are forgotten first
// (their tools are pinned afresh if they come back), a server keeps at most
// maxPinnedTools pins, and a definition larger than maxPinnedDefinition is
// pinned by its hash alone (a change is still caught; the diff then says
// the old text was not kept).
const (
	maxToolServers      = 512
	maxPinnedTools      = 2048
	maxPinnedDefinition = 64 << 10
)

// ErrToolPolicy is wrapped by every failure to read or write the tool
// decisions.
var ErrToolPolicy = errors.New("tool decisions")

// ToolPolicy is the one home of the operator's per-tool decisions: which
// tools are switched off, and the pinned definition of every tool (the
// rug-pull protection). Both are kept per server (toolIdentity: its name
// with its identity, the command line and env names, or the URL), so a
// decision follows the server across restarts and reloads, and a server
// whose environment now says something else (a rotated token, a changed
// setting) is held against what was approved.
//
// The first listing of a server pins every tool it lists; a later listing
// pins the tools it adds, except one that takes the name of another
// server's tool with another definition (it shadows that tool). A tool
// whose definition no longer hashes to its pin, or that shadows, is
// changed until accepted. The publication applies all this to every tool
// (Tool.Disabled, Tool.Changed, Tool.PinnedHash), so every face sees the
// same; the gateway leaves switched-off and changed tools out of what it
// offers, and a call to a switched-off tool is refused.
//
// With a file (OpenToolPolicy) the decisions are tools.json in the state
// directory, changed under the same lock and atomic rename as trust.json,
// so parallel mcpdeck processes never lose each other's decisions; a
// running session picks up what another one wrote (Refresh). Entries are
// keyed by the SHA-256 of the identity. It is safe for concurrent use:
// readers (a publication) load an immutable state and never wait, writers
// take turns.
type ToolPolicy struct {
	path string // "" when the decisions live in this process only
	// writeMu serialises this process's changes (each a read-merge-write
	// of the file under its lock); readers never take it.
	writeMu sync.Mutex
	// cur is the decisions now, replaced whole by each change.
	cur atomic.Pointer[policyState]
	// stamp is the file as last read or written (Refresh compares it);
	// guarded by writeMu.
	stamp fileStamp
	// changes is the cache every state of this policy shares.
	changes *changeCache
}

// policyState is every server's decisions, by identity hash. Immutable once
// stored in ToolPolicy.cur.
type policyState struct {
	servers map[string]*serverDecisions
	// changes caches how a definition differs from a pin, by the pin and
	// the definition's hash: a publication repeats it for every changed
	// tool, and a diff of schemas is not free. Shared by every state of a
	// ToolPolicy; nil in a state of none.
	changes *changeCache
}

// toolsFile is tools.json on disk.
type toolsFile struct {
	Servers map[string]*serverDecisions `json:"servers"`
}

// fileStamp tells whether tools.json changed since it was read.
type fileStamp struct {
	size int64
	mod  time.Time
}

// NewToolPolicy returns decisions that live as long as this process (a
// controller's when Options.Tools is nil, the checker's).
func NewToolPolicy() *ToolPolicy {
	p := &ToolPolicy{changes: &changeCache{m: map[string]*ToolChange{}}}
	p.cur.Store(&policyState{servers: map[string]*serverDecisions{}, changes: p.changes})
	return p
}

// OpenToolPolicy opens the decisions kept in dir (config.DefaultStateDir
// when empty). A missing file is no decision yet; nothing is written until
// the first one. A file that cannot be read still gives usable, empty
// decisions, with an error that says so: nothing is pinned from it, and the
// next decision replaces it.
func OpenToolPolicy(dir string) (*ToolPolicy, error) {
	p := NewToolPolicy()
	if dir == "" {
		d, err := config.DefaultStateDir()
		if err != nil {
			return p, fmt.Errorf("%w: %w", ErrToolPolicy, err)
		}
		dir = d
	}
	p.path = filepath.Join(dir, toolsFileName)
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.load(); err != nil {
		return p, err
	}
	return p, nil
}

// Path is the decisions' file, "" when they live in this process only.
func (p *ToolPolicy) Path() string {
	if p == nil {
		return ""
	}
	return p.path
}

// state is the decisions now; never nil.
func (p *ToolPolicy) state() *policyState {
	if p == nil {
		return &policyState{}
	}
	return p.cur.Load()
}

// load reads the file into cur if it changed since it was last read, and
// reports whether it did. The caller holds writeMu.
func (p *ToolPolicy) load() (bool, error) {
	fi, err := os.Stat(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w: %w", p.path, ErrToolPolicy, err)
	}
	st := fileStamp{size: fi.Size(), mod: fi.ModTime()}
	if st == p.stamp {
		return false, nil
	}
	data, err := os.ReadFile(p.path)
	var servers map[string]*serverDecisions
	if err == nil {
		servers, err = decodeTools(data)
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w: %w (tools are pinned afresh and none is switched off; the file is replaced at the next decision)", p.path, ErrToolPolicy, err)
	}
	p.stamp = st
	p.cur.Store(&policyState{servers: servers, changes: p.changes})
	return true, nil
}

// Refresh reads the file again if another process changed it since, and
// reports whether the decisions changed. A controller calls it now and
// then, so `mcpdeck tools disable` in one terminal reaches a gateway or a
// TUI running in another.
func (p *ToolPolicy) Refresh() (bool, error) {
	if p == nil || p.path == "" {
		return false, nil
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.load()
}

func decodeTools(data []byte) (map[string]*serverDecisions, error) {
	out := map[string]*serverDecisions{}
	if len(data) == 0 {
		return out, nil
	}
	var f toolsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	for k, d := range f.Servers {
		if d != nil {
			out[k] = d
		}
	}
	return out, nil
}

// encodeTools writes tools.json, keeping the maxToolServers seen last.
func encodeTools(servers map[string]*serverDecisions) ([]byte, error) {
	f := toolsFile{Servers: map[string]*serverDecisions{}}
	for _, k := range newestKeys(servers, maxToolServers, func(d *serverDecisions) time.Time { return d.Seen }) {
		f.Servers[k] = servers[k]
	}
	return encodeStateFile(f)
}

// change applies edit to the decisions of one identity, here and in the
// file (merged under the file's lock with what other processes wrote).
// edit gets a copy it may change (nil when the identity has none yet) and
// returns it, or nil to leave everything as it was. In memory the change
// holds even when the file cannot be written; the error says so.
func (p *ToolPolicy) change(id string, edit func(d *serverDecisions) *serverDecisions) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	apply := func(servers map[string]*serverDecisions) bool {
		var cp *serverDecisions
		if old := servers[id]; old != nil {
			c := *old
			c.Disabled = slices.Clone(old.Disabled)
			c.Pins = maps.Clone(old.Pins)
			cp = &c
		}
		d := edit(cp)
		if d == nil {
			return false
		}
		servers[id] = d
		return true
	}
	if p.path == "" {
		next := maps.Clone(p.state().servers)
		if apply(next) {
			p.cur.Store(&policyState{servers: next, changes: p.changes})
		}
		return nil
	}
	// What another process wrote since counts before this change.
	_, _ = p.load()
	next := maps.Clone(p.state().servers)
	if !apply(next) {
		return nil
	}
	p.cur.Store(&policyState{servers: next, changes: p.changes})
	err := config.UpdateStateFile(p.path, func(old []byte) ([]byte, error) {
		servers, err := decodeTools(old)
		if err != nil {
			servers = map[string]*serverDecisions{} // unreadable: replaced, as OpenToolPolicy said
		}
		apply(servers)
		p.cur.Store(&policyState{servers: servers, changes: p.changes})
		return encodeTools(servers)
	})
	if err != nil {
		return fmt.Errorf("saving tool decisions to %s: %w: %w", p.path, ErrToolPolicy, err)
	}
	if fi, err := os.Stat(p.path); err == nil {
		p.stamp = fileStamp{size: fi.Size(), mod: fi.ModTime()}
	}
	return nil
}

// pinOf is the pin of a definition now.
func pinOf(t Tool, now time.Time) Pin {
	d := t.Definition()
	pin := Pin{Hash: t.Hash, At: now.UTC().Truncate(time.Second)}
	if pin.Hash == "" {
		pin.Hash = d.Hash()
	}
	if len(d.canonical()) <= maxPinnedDefinition {
		pin.Definition = &d
	}
	return pin
}

// refreshSeen is how old an entry gets before a listing that changes
// nothing writes it again (Seen decides which entries are dropped first).
const refreshSeen = 24 * time.Hour

// observe records a listing of a server's tools: the first listing of an
// identity pins every tool; a later one pins the tools it adds, except
// those that shadow another server's tool (listed: what every server
// lists now, listedTools). A listing
// that pins nothing new changes nothing (at most once a day its Seen).
func (p *ToolPolicy) observe(id, server string, tools []Tool, listed map[string][]shadowed) error {
	if p == nil {
		return nil
	}
	now := time.Now()
	return p.change(id, func(d *serverDecisions) *serverDecisions {
		first := d == nil
		if first {
			d = &serverDecisions{Pins: map[string]Pin{}}
		}
		if d.Pins == nil {
			d.Pins = map[string]Pin{}
		}
		added := false
		for _, t := range tools {
			if _, ok := d.Pins[t.ServerTool]; ok || len(d.Pins) >= maxPinnedTools {
				continue
			}
			if !first {
				if _, shadows := p.state().shadows(id, server, t, listed); shadows {
					continue // changed until accepted
				}
			}
			d.Pins[t.ServerTool] = pinOf(t, now)
			added = true
		}
		if !first && !added && d.Server == server && now.Sub(d.Seen) < refreshSeen {
			return nil
		}
		d.Server, d.Seen = server, now.UTC().Truncate(time.Second)
		return d
	})
}

// shadowed is a server's tool of some name.
type shadowed struct {
	server string
	hash   string
}

// listedTools indexes tools by the server's name for them: which servers
// list a tool of that name, with which definition.
func listedTools(tools []Tool) map[string][]shadowed {
	out := map[string][]shadowed{}
	for _, t := range tools {
		out[t.ServerTool] = append(out[t.ServerTool], shadowed{server: t.Server, hash: t.Hash})
	}
	return out
}

// shadows reports whether t, which server lists and identity id has not
// pinned, takes the name of another server's tool with another
// definition: one another server lists now (listed), else one pinned for
// another identity. Two copies of one server (one command with two
// directories) list the same definition, which shadows nothing.
func (st *policyState) shadows(id, server string, t Tool, listed map[string][]shadowed) (string, bool) {
	now := false
	for _, o := range listed[t.ServerTool] {
		if o.server == server {
			continue
		}
		if o.hash != t.Hash {
			return o.server, true
		}
		now = true
	}
	if now {
		return "", false // listed now with this very definition: the listing has the say
	}
	for _, k := range slices.Sorted(maps.Keys(st.servers)) {
		if d := st.servers[k]; k != id && d.Server != server {
			if pin, ok := d.Pins[t.ServerTool]; ok && pin.Hash != t.Hash {
				return d.Server, true
			}
		}
	}
	return "", false
}

// setDisabled switches tools (the server's names) off (off true) or on.
func (p *ToolPolicy) setDisabled(id, server string, tools []string, off bool) error {
	return p.change(id, func(d *serverDecisions) *serverDecisions {
		if d == nil {
			d = &serverDecisions{}
		}
		set := map[string]bool{}
		for _, n := range d.Disabled {
			set[n] = true
		}
		for _, n := range tools {
			if off {
				set[n] = true
			} else {
				delete(set, n)
			}
		}
		d.Disabled = slices.Sorted(maps.Keys(set))
		d.Server, d.Seen = server, time.Now().UTC().Truncate(time.Second)
		return d
	})
}

// pin records tools' current definitions as accepted.
func (p *ToolPolicy) pin(id, server string, tools []Tool) error {
	now := time.Now()
	return p.change(id, func(d *serverDecisions) *serverDecisions {
		if d == nil {
			d = &serverDecisions{}
		}
		if d.Pins == nil {
			d.Pins = map[string]Pin{}
		}
		for _, t := range tools {
			d.Pins[t.ServerTool] = pinOf(t, now)
		}
		d.Server, d.Seen = server, now.UTC().Truncate(time.Second)
		return d
	})
}
