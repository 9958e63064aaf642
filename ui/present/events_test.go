package present

import (
	"testing"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
)

// A call nobody approved in time timed out: nobody decided it, so the
// line names no decider ("timed out by the timeout" said it twice).
func TestDecisionTextOfATimeout(t *testing.T) {
	asked := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
	e := runtime.OperatorDecision{EventHeader: runtime.EventHeader{Time: asked.Add(3 * time.Second)}, Kind: runtime.DecisionApproval,
		ID: "42-1", Client: "qa-client 1 (c1, http)", Subject: "tools/call everything__get-sum", Rule: `gateway.tools.approve[0] "*__get-sum"`,
		Decision: gateway.TimedOut, By: "the timeout", Reason: "nobody answered within 3s", Asked: asked}
	want := `approval 42-1: tools/call everything__get-sum for qa-client 1 (c1, http) timed out after 3.0s: nobody answered within 3s (rule gateway.tools.approve[0] "*__get-sum")`
	if got := DecisionText(e); got != want {
		t.Errorf("DecisionText:\n got %s\nwant %s", got, want)
	}
	e.Decision, e.By, e.Reason = gateway.Denied, "the operator (TUI)", ""
	want = `approval 42-1: tools/call everything__get-sum for qa-client 1 (c1, http) denied by the operator (TUI) after 3.0s (rule gateway.tools.approve[0] "*__get-sum")`
	if got := DecisionText(e); got != want {
		t.Errorf("DecisionText:\n got %s\nwant %s", got, want)
	}
}

// TestStateChangeWordsOffNotDisabled: the runtime's disabled state is every
// server that does not run (MCP off, switched off, or disabled in its
// configuration), while both faces keep the word "disabled" for the
// configuration's flag. A server switched off logged "stopping →
// disabled", and one that merely waited for MCP "disabled → starting".
func TestStateChangeWordsOffNotDisabled(t *testing.T) {
	h := runtime.EventHeader{Server: "everything"}
	for _, c := range []struct {
		ev   runtime.StateChanged
		want string
	}{
		{runtime.StateChanged{EventHeader: h, From: runtime.StateStopping, To: runtime.StateDisabled}, "stopping → off"},
		{runtime.StateChanged{EventHeader: h, From: runtime.StateDisabled, To: runtime.StateStarting}, "off → starting"},
		{runtime.StateChanged{EventHeader: h, From: runtime.StateReady, To: runtime.StateNeedsLogin, Reason: "401"}, "ready → needs login: 401"},
	} {
		l, ok := Describe(c.ev)
		if !ok || l.Text != c.want {
			t.Errorf("%v → %v reads %q, want %q", c.ev.From, c.ev.To, l.Text, c.want)
		}
	}
}

// Progress that comes after its call was cancelled names the call, not
// the raw token it carried ("(token mcpdeck-7)" was all watch and the
// Notifications tab said of it).
func TestLateProgressNamesItsCall(t *testing.T) {
	h := runtime.EventHeader{Server: "everything"}
	l, ok := Describe(runtime.Progress{EventHeader: h, Token: "mcpdeck-7", Progress: 2, Total: 30, Tool: "trigger-long-running-operation", Late: "cancelled"})
	if want := "late progress for trigger-long-running-operation (cancelled): 2/30 (6%)"; !ok || l.Text != want {
		t.Errorf("late progress reads %q, want %q", l.Text, want)
	}
	l, _ = Describe(runtime.Progress{EventHeader: h, Token: "theirs", Progress: 1})
	if want := "1 (token theirs)"; l.Text != want {
		t.Errorf("progress of no request of ours reads %q, want %q", l.Text, want)
	}
}
