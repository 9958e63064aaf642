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
