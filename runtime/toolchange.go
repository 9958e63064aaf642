package runtime

import (
	"slices"
	"sync"
	"time"
)

// apply applies the decisions to the tools of a publication (ids: each
// server's identity).
func (st *policyState) apply(tools []Tool, ids map[string]string) {
	if len(st.servers) == 0 {
		return
	}
	listed := listedTools(tools)
	for i := range tools {
		st.decide(ids[tools[i].Server], tools[i].Server, &tools[i], listed)
	}
}

// decide applies the decisions to one listed tool of server (identity
// id), as a publication shows it: switched off, changed against its pin
// (with what changed and what of it reads as instructions to the model),
// or shadowing another server's tool (listed: every tool of the
// publication, listedTools).
func (st *policyState) decide(id, server string, t *Tool, listed map[string][]shadowed) {
	d := st.servers[id]
	if d == nil {
		return
	}
	t.Disabled = slices.Contains(d.Disabled, t.ServerTool)
	pin, pinned := d.Pins[t.ServerTool]
	switch {
	case pinned && pin.Hash == t.Hash:
		t.PinnedHash = pin.Hash
	case pinned:
		t.PinnedHash = pin.Hash
		t.Changed = st.changes.change(pin, *t)
	default:
		if o, ok := st.shadows(id, server, *t, listed); ok {
			t.Changed = &ToolChange{Kind: ChangeShadows, Shadows: o, InstructionLike: InstructionLike(t.Description)}
		}
	}
}

// changeOf describes how t differs from its pin.
func changeOf(pin Pin, t Tool) *ToolChange {
	c := &ToolChange{Kind: ChangeDefinition, PinnedAt: pin.At, Pinned: pin.Definition}
	if pin.Definition != nil {
		c.Fields = changedFields(*pin.Definition, t.Definition())
		c.InstructionLike = newInstructionLike(pin.Definition.Description, t.Description)
	} else {
		c.InstructionLike = InstructionLike(t.Description)
	}
	return c
}

// The kinds of ToolChange.
const (
	// ChangeDefinition: the tool's definition no longer hashes to its pin.
	ChangeDefinition = "definition"
	// ChangeShadows: a tool the server added later takes the name of
	// another server's tool, with another definition.
	ChangeShadows = "shadows"
)

// ToolChange says how a tool differs from what the operator approved.
// The gateway withholds a changed tool until it is accepted.
type ToolChange struct {
	Kind string `json:"kind"` // ChangeDefinition or ChangeShadows
	// Fields are the members of the definition that changed (name,
	// description, inputSchema, outputSchema, annotations); empty when the
	// pinned text was too large to keep.
	Fields []string `json:"fields,omitempty"`
	// Pinned is the definition as approved, for the word-level diff; nil
	// when it was too large to keep.
	Pinned   *ToolDefinition `json:"pinned,omitempty"`
	PinnedAt time.Time       `json:"pinnedAt,omitzero"`
	// Shadows names the other server whose tool name it takes.
	Shadows string `json:"shadows,omitempty"`
	// InstructionLike is what the new description has that reads as
	// instructions aimed at the model (InstructionLike), and the pinned
	// one did not.
	InstructionLike []string `json:"instructionLike,omitempty"`
}

// changeCache is policyState.changes: bounded, safe for concurrent use.
type changeCache struct {
	mu sync.Mutex
	m  map[string]*ToolChange
}

// maxCachedChanges bounds the cache; past it, it starts again.
const maxCachedChanges = 4096

// change returns how t differs from pin, computed once per pin and
// definition. The result is shared: callers must not modify it.
func (c *changeCache) change(pin Pin, t Tool) *ToolChange {
	if c == nil {
		return changeOf(pin, t)
	}
	key := pin.Hash + "\x00" + pin.At.String() + "\x00" + t.Hash
	c.mu.Lock()
	ch, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return ch
	}
	ch = changeOf(pin, t)
	c.mu.Lock()
	if len(c.m) >= maxCachedChanges {
		clear(c.m)
	}
	c.m[key] = ch
	c.mu.Unlock()
	return ch
}

// serverDecisions are one server identity's decisions. Immutable once in a
// stored policyState: a change copies the entry.
type serverDecisions struct {
	Server   string         `json:"server,omitempty"` // the name it was configured under, for people reading the file
	Seen     time.Time      `json:"seen"`
	Disabled []string       `json:"disabled,omitempty"` // the server's tool names, sorted
	Pins     map[string]Pin `json:"pins,omitempty"`     // by the server's tool name
}

// Pin is a tool's definition as the operator last approved it: at its
// server's first listing, when it was added later, or when the operator
// accepted a change.
type Pin struct {
	Hash string    `json:"sha256"`
	At   time.Time `json:"pinnedAt"`
	// Definition is the pinned text, for the diff of a change; nil when
	// it was larger than maxPinnedDefinition.
	Definition *ToolDefinition `json:"definition,omitempty"`
}
