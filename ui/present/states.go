package present

import "mcpdeck/runtime"

// StateSentence is what a server's state says after its name in a
// sentence: "demo has failed", "docs needs a login", "web is starting".
// A state's own name is a column's word ("needs login"); glued after
// "is" it made "is needs login" and "is failed".
func StateSentence(s runtime.State) string {
	switch s {
	case runtime.StateFailed:
		return "has failed"
	case runtime.StateNeedsLogin:
		return "needs a login"
	case runtime.StateStopped:
		return "has stopped"
	case runtime.StateInvalid:
		return "has an invalid configuration"
	case runtime.StateDisabled:
		return "is not running"
	}
	return "is " + s.String()
}

// StateWord is the word a person reads for a state's stable name
// ("needs-login" reads "needs login"); a name no state has is kept.
func StateWord(name string) string {
	var st runtime.State
	if st.UnmarshalText([]byte(name)) != nil {
		return name
	}
	return st.String()
}

// TransitionWord is a state's word in a transition ("stopping → off"):
// the runtime's disabled state is every server that does not run (MCP
// off, switched off in the session, or disabled in its configuration),
// and both faces keep "disabled" for the configuration's flag alone, so
// a transition says "off", which is true of all three.
func TransitionWord(s runtime.State) string {
	if s == runtime.StateDisabled {
		return "off"
	}
	return s.String()
}
