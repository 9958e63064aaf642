package ui

import (
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// The STATE column never says "disabled" of a server that only waits for
// MCP to be switched on: "disabled" is the configuration's flag, and a
// server switched off for the session, one MCP would start, one it did
// not start and one whose configuration is invalid each have a word.
func TestStateWordsAreDistinct(t *testing.T) {
	t.Parallel()
	srv := func(enabled, configEnabled bool, st runtime.State) runtime.ServerSnapshot {
		return runtime.ServerSnapshot{Name: "s", Enabled: enabled, ConfigEnabled: configEnabled, State: st}
	}
	for _, tc := range []struct {
		name   string
		mcpOn  bool
		srv    runtime.ServerSnapshot
		word   string
		phrase string
	}{
		{"enabled, MCP off", false, srv(true, true, runtime.StateDisabled), "MCP off", "is not running (MCP is off)"},
		{"enabled, MCP switched off again", false, srv(true, true, runtime.StateStopped), "MCP off", "is not running (MCP is off)"},
		{"switched on for the session, MCP off", false, srv(true, false, runtime.StateDisabled), "MCP off", "is not running (MCP is off)"},
		{"disabled in configuration, MCP off", false, srv(false, false, runtime.StateDisabled), "disabled", "is disabled in its configuration"},
		{"disabled in configuration, MCP on", true, srv(false, false, runtime.StateDisabled), "disabled", "is disabled in its configuration"},
		{"switched off, MCP on", true, srv(false, true, runtime.StateDisabled), "switched off", "is switched off"},
		{"switched off, MCP off", false, srv(false, true, runtime.StateStopped), "switched off", "is switched off"},
		{"switched off, still stopping", true, srv(false, true, runtime.StateStopping), "stopping", "is stopping"},
		{"enabled, MCP on, not started (unapproved)", true, srv(true, true, runtime.StateDisabled), "not started", "is not started"},
		{"ready", true, srv(true, true, runtime.StateReady), "ready", "is ready"},
		{"invalid", false, srv(true, true, runtime.StateInvalid), "invalid", "has an invalid configuration"},
		{"failed", true, srv(true, true, runtime.StateFailed), "failed", "has failed"},
		{"needs login", true, srv(true, true, runtime.StateNeedsLogin), "needs login", "needs a login"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := uitest.OffSnapshot()
			snap.Enabled = tc.mcpOn
			c := &common{snap: snap}
			if got := c.stateWord(tc.srv); got != tc.word {
				t.Errorf("stateWord = %q, want %q", got, tc.word)
			}
			if got := c.stateSentence(tc.srv); got != tc.phrase {
				t.Errorf("stateSentence = %q, want %q", got, tc.phrase)
			}
			if len(tc.word) > colState {
				t.Errorf("%q is wider than the STATE column (%d)", tc.word, colState)
			}
		})
	}
}
