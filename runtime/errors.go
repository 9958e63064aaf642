package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

// The transport's sentinels, re-exported so the faces and the checker match
// runtime errors without importing jsonrpc.
var (
	// ErrTimeout: a request or a start ran out of time. It also matches
	// ErrCancelled: a timed-out request is cancelled on the wire.
	ErrTimeout = jsonrpc.ErrTimeout
	// ErrCancelled: a request was cancelled (by the user, a timeout, a context).
	ErrCancelled = jsonrpc.ErrCancelled
	// ErrClosed: the transport closed; outstanding requests were rejected.
	ErrClosed = jsonrpc.ErrClosed
	// ErrMessageTooLarge: the server sent a message over the size limit.
	ErrMessageTooLarge = jsonrpc.ErrMessageTooLarge
	// ErrClosedByClient is the close cause of a connection mcpdeck closed itself.
	ErrClosedByClient = jsonrpc.ErrClosedByClient
)

// Error values of the transport, for errors.As without importing jsonrpc.
type (
	// RPCError is a JSON-RPC error object a server answered with.
	RPCError = jsonrpc.Error
	// ClosedError is a request rejected because its transport closed.
	ClosedError = jsonrpc.ClosedError
	// CancelledError is a request cancelled locally.
	CancelledError = jsonrpc.CancelledError
)

// JSON-RPC error codes the faces and the checker judge.
const (
	CodeParseError     = jsonrpc.CodeParseError
	CodeInvalidRequest = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
	CodeInternalError  = jsonrpc.CodeInternalError
)

// ErrorKind says what kind of failure an error is, so the faces can branch
// on it (exit codes, hints, icons) without matching text.
type ErrorKind int

// The kinds of runtime errors.
const (
	KindUnknown            ErrorKind = iota // anything not classified below
	KindTimeout                             // a request or start ran out of time
	KindCancelled                           // cancelled by the user or a context
	KindClosed                              // the transport closed under the request
	KindExited                              // the server process exited
	KindProtocol                            // the server answered with a JSON-RPC error
	KindTransport                           // an HTTP exchange failed
	KindTooLarge                            // a message over the size limit
	KindUnsupportedVersion                  // no protocol revision in common
	KindNeedsLogin                          // the server requires authorization
	KindConfig                              // the configuration cannot work (command, cwd, input)
	KindInvalidArguments                    // arguments do not match the input schema
	KindSchema                              // a schema is unusable, or a result violates it
	KindNotEnabled                          // MCP is off
	KindNotReady                            // the server is not ready
	KindUnknownServer                       // no such server
	KindUnknownTool                         // no such tool
	KindShutdown                            // the session has shut down
	KindSuperseded                          // a later command replaced this one
	KindRefused                             // the server's state does not allow the command
	KindDeclined                            // the input the server needs was declined
)

var kindNames = [...]string{"unknown", "timeout", "cancelled", "closed", "exited", "protocol", "transport",
	"too-large", "unsupported-version", "needs-login", "config", "invalid-arguments", "schema",
	"not-enabled", "not-ready", "unknown-server", "unknown-tool", "shutdown", "superseded", "refused", "declined"}

func (k ErrorKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("ErrorKind(%d)", int(k))
	}
	return kindNames[k]
}

// MarshalText writes the kind's name, so JSON output stays readable and stable.
func (k ErrorKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name (recordings, JSON round trips).
func (k *ErrorKind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = ErrorKind(i)
			return nil
		}
	}
	*k = KindUnknown
	return nil
}

// Sentinels of the runtime.
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
	// ErrSchema: a tool's schema is unusable, or a result violates its output schema.
	ErrSchema = errors.New("schema problem")
	// ErrUnsupportedVersion: the server and mcpdeck have no protocol revision in common.
	ErrUnsupportedVersion = errors.New("unsupported protocol version")
	// ErrNeedsLogin: the server requires authorization and no usable token
	// is stored (auth's sentinel: an *auth.NeedsLoginError says where to log in).
	ErrNeedsLogin = auth.ErrNeedsLogin
	// ErrConfig: the server's configuration cannot work as written.
	ErrConfig = errors.New("configuration problem")
	// ErrProcessExited: the server process exited.
	ErrProcessExited = errors.New("server process exited")
	// ErrTransport: an HTTP exchange with the server failed.
	ErrTransport = errors.New("transport failure")
	// ErrDeclined: the server asked again for input that was declined (an
	// elicitation it cannot go on without); asking the person once more
	// would only loop.
	ErrDeclined = errors.New("the input the server needs was declined")
	// ErrProtocol: the server answered with a JSON-RPC error.
	ErrProtocol = errors.New("protocol error")
	// ErrRefused: the server's current state does not allow the command
	// (a refused transition names the state).
	ErrRefused = errors.New("refused")
)

// ErrSuperseded is returned to a command that a later command replaced
// before it was applied (the latest request wins).
var ErrSuperseded = errors.New("superseded by a later request")

// sentinel is the error a kind matches with errors.Is.
func (k ErrorKind) sentinel() []error {
	switch k {
	case KindTimeout:
		return []error{ErrTimeout, ErrCancelled}
	case KindCancelled:
		return []error{ErrCancelled}
	case KindClosed:
		return []error{ErrClosed}
	case KindExited:
		return []error{ErrProcessExited, ErrClosed}
	case KindProtocol:
		return []error{ErrProtocol}
	case KindTransport:
		return []error{ErrTransport}
	case KindTooLarge:
		return []error{ErrMessageTooLarge}
	case KindUnsupportedVersion:
		return []error{ErrUnsupportedVersion}
	case KindNeedsLogin:
		return []error{ErrNeedsLogin}
	case KindConfig:
		return []error{ErrConfig}
	case KindInvalidArguments:
		return []error{ErrInvalidArguments}
	case KindSchema:
		return []error{ErrSchema}
	case KindNotEnabled:
		return []error{ErrNotEnabled}
	case KindNotReady:
		return []error{ErrNotReady}
	case KindUnknownServer:
		return []error{ErrUnknownServer}
	case KindUnknownTool:
		return []error{ErrUnknownTool}
	case KindShutdown:
		return []error{ErrShutdown}
	case KindSuperseded:
		return []error{ErrSuperseded}
	case KindRefused:
		return []error{ErrRefused}
	}
	return nil
}

// ErrorInfo is a runtime error as data: its kind, where it happened, and
// the facts (the server's error code, message and data). It survives in
// snapshots, and errors.Is matches it against the kind's sentinels
// (ErrTimeout, ErrClosed, ErrNeedsLogin, …) there too. It carries no advice:
// each face words its own hint from the kind.
type ErrorInfo struct {
	Kind    ErrorKind       `json:"kind"`
	Server  string          `json:"server,omitempty"`
	Method  string          `json:"method,omitempty"`
	Code    int64           `json:"code,omitempty"` // the JSON-RPC error code, for KindProtocol
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	At      time.Time       `json:"at"`
}

func (e *ErrorInfo) Error() string {
	s := e.Message
	switch {
	case e.Server != "" && e.Method != "":
		s = e.Server + ": " + e.Method + ": " + s
	case e.Server != "":
		s = e.Server + ": " + s
	}
	return s
}

// Unwrap lets errors.Is match the kind's sentinels.
func (e *ErrorInfo) Unwrap() []error { return e.Kind.sentinel() }

// CallError is a failed request: the error as data (Info), unwrapping to
// the underlying error so errors.As finds a *RPCError, *ClosedError or
// *CancelledError, and errors.Is the kind's sentinels.
type CallError struct {
	Info ErrorInfo
	Err  error
}

func (e *CallError) Error() string { return e.Info.Error() }

// Unwrap returns the cause and the kind's sentinels.
func (e *CallError) Unwrap() []error { return append([]error{e.Err}, e.Info.Kind.sentinel()...) }

// ArgumentsError lists the schema violations of a call's arguments.
type ArgumentsError struct {
	Server, Tool string
	Fields       []FieldError
}

func (e *ArgumentsError) Error() string {
	s := fmt.Sprintf("%s: %s: arguments do not match the input schema:", e.Server, e.Tool)
	for _, f := range e.Fields {
		s += "\n  " + f.String()
	}
	return s
}

// Unwrap matches ErrInvalidArguments.
func (e *ArgumentsError) Unwrap() error { return ErrInvalidArguments }

// KindOf classifies any error the runtime returns (or wraps).
func KindOf(err error) ErrorKind {
	var info *ErrorInfo
	var rpcErr *jsonrpc.Error
	var exit *proc.ExitError
	var cancelled *jsonrpc.CancelledError
	switch {
	case err == nil:
		return KindUnknown
	case errors.As(err, &info):
		return info.Kind
	case errors.As(err, &cancelled) && cancelled.Timeout && !cancelled.Arrived.Empty():
		// It timed out while the server sent something else (a wrong id,
		// a notification instead of a response): the server's fault. A
		// cancel by the user is only a cancel, whatever came meanwhile.
		return KindProtocol
	case errors.Is(err, ErrNeedsLogin):
		return KindNeedsLogin
	case errors.Is(err, ErrDeclined):
		return KindDeclined
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, ErrCancelled), errors.Is(err, context.Canceled):
		return KindCancelled
	case errors.Is(err, ErrMessageTooLarge):
		return KindTooLarge
	case errors.Is(err, mcp.ErrNoMutualVersion), errors.Is(err, mcp.ErrUnsupportedVersion):
		return KindUnsupportedVersion
	case errors.As(err, &rpcErr):
		switch rpcErr.Code {
		case mcphttp.CodeTransportError:
			return KindTransport
		case mcp.CodeUnsupportedVersion:
			return KindUnsupportedVersion
		}
		return KindProtocol
	case errors.Is(err, mcp.ErrTooManyRounds), errors.Is(err, mcp.ErrBadInputRequired),
		errors.Is(err, mcp.ErrUnknownResultType), errors.Is(err, mcp.ErrBadResult),
		errors.Is(err, mcp.ErrHeaderMismatch), errors.Is(err, mcp.ErrMissingCapability):
		return KindProtocol
	case errors.As(err, &exit), errors.Is(err, ErrProcessExited):
		return KindExited
	case errors.Is(err, proc.ErrNotFound), errors.Is(err, proc.ErrNoCommand),
		errors.Is(err, proc.ErrNotExecutable), errors.Is(err, proc.ErrBadDir), errors.Is(err, ErrConfig):
		return KindConfig
	case errors.Is(err, ErrUnsupportedVersion):
		return KindUnsupportedVersion
	case errors.Is(err, ErrClosed):
		return KindClosed
	case errors.Is(err, ErrTransport):
		return KindTransport
	case errors.Is(err, ErrInvalidArguments):
		return KindInvalidArguments
	case errors.Is(err, ErrSchema):
		return KindSchema
	case errors.Is(err, ErrNotEnabled):
		return KindNotEnabled
	case errors.Is(err, ErrNotReady):
		return KindNotReady
	case errors.Is(err, ErrUnknownServer):
		return KindUnknownServer
	case errors.Is(err, ErrUnknownTool):
		return KindUnknownTool
	case errors.Is(err, ErrShutdown):
		return KindShutdown
	case errors.Is(err, ErrSuperseded):
		return KindSuperseded
	case errors.Is(err, ErrRefused):
		return KindRefused
	}
	return KindUnknown
}

// errorInfo turns an error into data: its kind, where, and the facts.
func errorInfo(server, method string, err error) *ErrorInfo {
	info := &ErrorInfo{Kind: KindOf(err), Server: server, Method: method, Message: err.Error(), At: time.Now()}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		info.Code, info.Message, info.Data = rpcErr.Code, rpcErr.Message, rpcErr.Data
		if info.Message == "" {
			info.Message = fmt.Sprintf("error %d with no message", rpcErr.Code)
		}
	}
	return info
}

// callError wraps err for a caller of Call, Request and the like.
func callError(server, method string, err error) *CallError {
	return &CallError{Info: *errorInfo(server, method, err), Err: err}
}
