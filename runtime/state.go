package runtime

import (
	"errors"
	"fmt"
)

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

// Sentinel errors of the runtime.
var (
	// ErrNotEnabled: the operation needs MCP enabled (reload, calls).
	ErrNotEnabled = errors.New("mcp is not enabled")
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("unknown server")
	// ErrUnknownTool: the server has no tool of that name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrNotReady: the server is not ready to serve requests.
	ErrNotReady = errors.New("server is not ready")
	// ErrShutdown: the session has shut down.
	ErrShutdown = errors.New("session has shut down")
	// ErrInvalidArguments: arguments do not satisfy the tool's input schema.
	ErrInvalidArguments = errors.New("arguments do not match the tool's input schema")
)
