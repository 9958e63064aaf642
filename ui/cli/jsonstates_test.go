package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// identifier is how every state --json prints is spelt: lower case words
// joined by hyphens, as the error kinds are ("needs-login").
var identifier = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// everyState is every runtime.State, in order.
func everyState() []runtime.State {
	var out []runtime.State
	for s := runtime.State(0); !strings.HasPrefix(s.Name(), "State("); s++ {
		out = append(out, s)
	}
	return out
}

// TestJSONStatesAreIdentifiers: every state servers --json, the state
// gauge (which fleet --json prints back), watch --json and
// recordings can carry is an identifier, and reads back as the
// same state; the human table keeps its words.
func TestJSONStatesAreIdentifiers(t *testing.T) {
	states := everyState()
	if len(states) < 11 {
		t.Fatalf("found %d states, want every one of the runtime's (11 or more)", len(states))
	}
	for _, st := range states {
		v := runtime.ServerSnapshot{Name: "s", State: st, Enabled: true}
		row := serverStatus(v, nil)
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ State string }
		_ = json.Unmarshal(b, &back)
		if !identifier.MatchString(back.State) {
			t.Errorf("servers --json spells state %v %q: not an identifier", st, back.State)
		}
		var read runtime.State
		if err := read.UnmarshalText([]byte(back.State)); err != nil || read != st {
			t.Errorf("state %q reads back as %v (%v), want %v", back.State, read, err, st)
		}
		if w := present.StateWord(back.State); w != st.String() {
			t.Errorf("the table words %q as %q, want %q", back.State, w, st.String())
		}
		if b, _ := st.MarshalText(); string(b) != back.State {
			t.Errorf("state %v marshals as %q in events and recordings, %q in servers --json", st, b, back.State)
		}
	}
	if w := present.StateWord("needs-login"); w != "needs login" {
		t.Errorf("the human table says %q for needs-login, want the words kept", w)
	}
	for _, label := range stateNames() {
		if !identifier.MatchString(label) {
			t.Errorf("the state gauge has label %q: not an identifier (fleet --json prints it)", label)
		}
	}
	// The words a recording made before the names were identifiers still read.
	var st runtime.State
	if err := st.UnmarshalText([]byte("needs login")); err != nil || st != runtime.StateNeedsLogin {
		t.Errorf(`"needs login" reads as %v (%v)`, st, err)
	}
}
