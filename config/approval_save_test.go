package config

import "testing"

// Saved.Approval is the one rule every command that writes a project file
// follows (the command line's saveDoc, the TUI's manage modal): a file the
// save created is approved, an approved file changed stays approved, and
// nothing else is approved by writing it.
func TestSavedApproval(t *testing.T) {
	approved := map[string]bool{"old": true}
	trusted := func(f File) bool { return f.Scope == ScopeProject && approved[f.Hash] }
	for _, c := range []struct {
		name  string
		saved Saved
		want  bool
	}{
		{"created", Saved{Created: true, OldHash: "none", NewHash: "new"}, true},
		{"approved content changed", Saved{OldHash: "old", NewHash: "new"}, true},
		{"unapproved content changed", Saved{OldHash: "other", NewHash: "new"}, false},
		{"unchanged", Saved{OldHash: "old", NewHash: "old"}, false},
	} {
		f, ok := c.saved.Approval("/p/.mcp.json", trusted)
		if ok != c.want {
			t.Errorf("%s: approved %v, want %v", c.name, ok, c.want)
		}
		if ok && (f.Path != "/p/.mcp.json" || f.Scope != ScopeProject || f.Hash != "new") {
			t.Errorf("%s: approves %+v, want the new content", c.name, f)
		}
	}
}
