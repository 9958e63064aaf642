package runtime

import (
	"fmt"
	"slices"
)

// State is a server's lifecycle state. The order is meaningful: a server
// is usable only from Ready on, and only Ready and Degraded publish
// capabilities.
type State int

// Server states (DESIGN.md: disabled → starting → initializing → listing →
// ready; failed(reason, reconnectable); stopping; stopped), plus the two a
// person must act on: needs-login and invalid.
const (
	StateDisabled     State = iota // not running: MCP off, or the server is switched off
	StateStarting                  // process spawning or HTTP connecting
	StateInitializing              // initialize (or server/discover) sent, waiting for the result
	StateListing                   // listing tools, prompts and resources (all pages)
	StateReady                     // initialized and listed: capabilities published
	StateDegraded                  // ready, but health checks are being missed
	StateFailed                    // the connection failed; see Reason and Reconnectable
	StateStopping                  // teardown in progress
	StateStopped                   // torn down by request
	StateNeedsLogin                // the server requires authorization; log in, then reconnect
	StateInvalid                   // its configuration is invalid; it never starts
)

// stateNames are the states' stable names: identifiers, as JSON output,
// metric labels and recordings spell them. stateWords are the words a
// person reads (tables, the TUI) where they differ.
var (
	stateNames = [...]string{"disabled", "starting", "initializing", "listing", "ready", "degraded", "failed",
		"stopping", "stopped", "needs-login", "invalid"}
	stateWords = map[State]string{StateNeedsLogin: "needs login"}
)

// String is the state as a person reads it ("needs login").
func (s State) String() string {
	if w, ok := stateWords[s]; ok {
		return w
	}
	return s.Name()
}

// Name is the state's stable identifier ("needs-login"): what --json,
// metrics and recordings write.
func (s State) Name() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// MarshalText writes the state's name (JSON output, recordings).
func (s State) MarshalText() ([]byte, error) { return []byte(s.Name()), nil }

// UnmarshalText reads a state's name, or its word (what recordings made
// before the names were identifiers hold).
func (s *State) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if n == string(b) || State(i).String() == string(b) {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("unknown server state %q", b)
}

// Live reports whether the server has a connection that serves requests.
func (s State) Live() bool { return s == StateReady || s == StateDegraded }

// Busy reports whether the server is on its way up.
func (s State) Busy() bool { return s == StateStarting || s == StateInitializing || s == StateListing }

// Idle reports whether the server has no connection and none is on its
// way: a start may begin from here.
func (s State) Idle() bool {
	switch s {
	case StateDisabled, StateFailed, StateStopped, StateNeedsLogin:
		return true
	}
	return false
}

// transitions lists, for each state, the states it may move to. Anything
// else is refused with a *TransitionError: the controller's bookkeeping
// can then never invent a path the design does not have.
var transitions = map[State][]State{
	StateDisabled:     {StateStarting, StateStopped, StateInvalid},
	StateStarting:     {StateInitializing, StateListing, StateReady, StateFailed, StateNeedsLogin, StateStopping},
	StateInitializing: {StateListing, StateReady, StateFailed, StateNeedsLogin, StateStopping},
	StateListing:      {StateReady, StateFailed, StateNeedsLogin, StateStopping},
	StateReady:        {StateDegraded, StateFailed, StateStopping},
	StateDegraded:     {StateReady, StateFailed, StateStopping},
	StateFailed:       {StateStarting, StateStopped, StateDisabled, StateInvalid},
	StateStopping:     {StateStopped, StateDisabled, StateInvalid},
	StateStopped:      {StateStarting, StateDisabled, StateInvalid},
	StateNeedsLogin:   {StateStarting, StateStopped, StateDisabled, StateInvalid},
	StateInvalid:      {StateDisabled, StateStopped},
}

// CanMove reports whether from → to is a transition the lifecycle has.
// Staying in the same state is always allowed.
func CanMove(from, to State) bool { return from == to || slices.Contains(transitions[from], to) }

// TransitionError is a refused state change: it names the server, the
// state it is in and the state it was asked to move to. It matches
// ErrRefused.
type TransitionError struct {
	Server   string
	From, To State
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("server %q is %s and cannot become %s", e.Server, e.From, e.To)
}

// Unwrap matches ErrRefused.
func (e *TransitionError) Unwrap() error { return ErrRefused }
