package runtime

import "fmt"

// State is a server's lifecycle state. The order is meaningful: a server
// is usable only from Ready on, and only Ready and Degraded publish
// capabilities.
type State int

// Server states (DESIGN.md: disabled → starting → initializing → listing →
// ready; failed(reason, reconnectable); stopping; stopped).
const (
	StateDisabled     State = iota // not running: MCP off, or the server is disabled
	StateStarting                  // process spawning or HTTP connecting
	StateInitializing              // initialize sent, waiting for the result
	StateListing                   // listing tools, prompts and resources (all pages)
	StateReady                     // initialized and listed: capabilities published
	StateDegraded                  // ready, but pings are being missed
	StateFailed                    // the connection failed; see Reason and Reconnectable
	StateStopping                  // teardown in progress
	StateStopped                   // torn down by request
)

var stateNames = [...]string{"disabled", "starting", "initializing", "listing", "ready", "degraded", "failed", "stopping", "stopped"}

func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// Live reports whether the server has a connection that serves requests.
func (s State) Live() bool { return s == StateReady || s == StateDegraded }

// Busy reports whether the server is on its way up.
func (s State) Busy() bool { return s == StateStarting || s == StateInitializing || s == StateListing }
