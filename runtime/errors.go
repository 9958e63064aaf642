package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// StoppedReading is in the message of a request that timed out before it
// could even be written (jsonrpc.CancelledError.Unwritten): the server
// stopped reading its input, so no timeout would have been enough.
const StoppedReading = jsonrpc.StoppedReading

// StartupTimedOut is in the message of a start that ran out of its
// startup timeout (the server's startupTimeout): it bounds starting the
// server, initialize and its first listing of tools, prompts and
// resources, so a face can say which setting to raise; callTimeout bounds
// each request once the server is ready.
const StartupTimedOut = "not ready within the startup timeout"

// EmptyArgumentCause follows an argument's name in the message of a
// startup timeout of a server given an empty argument (node, given one,
// reads its program from stdin: mcpdeck's pipe), so a face does not advise
// more time.
const EmptyArgumentCause = "is empty, the likely cause"

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
// on it (exit codes, hints, icons) without matching text. Everything the
// runtime says of a kind is in its row of errorKinds.
type ErrorKind int

// The kinds of runtime errors.
const (
	KindUnknown            ErrorKind = iota // anything not classified below
	KindTimeout                             // a request or start ran out of time
	KindCancelled                           // cancelled by the user or a context
	KindClosed                              // the transport closed under the request
	KindExited                              // the server process exited
	KindProtocol                            // the server answered with a JSON-RPC error, or broke the protocol
	KindTransport                           // an HTTP exchange failed
	KindTooLarge                            // a message over the size limit
	KindUnsupportedVersion                  // no protocol revision in common
	KindNeedsLogin                          // the server requires authorization
	KindConfig                              // the configuration cannot work (command, cwd, input, url, credentials)
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
	KindToolSwitchedOff                     // the tool is switched off in mcpdeck
	KindUnknownPrompt                       // no such prompt
	KindUnknownResource                     // no such resource, or resource template
	KindUnknownTask                         // no such task (never existed, expired, another client's)
	KindAuth                                // the server asked for authorization, and authorizing failed

	numErrorKinds // not a kind: how many there are, for the table's check
)

// Sentinels of the runtime.
var (
	// ErrNotEnabled: the operation needs MCP enabled (reload, calls).
	ErrNotEnabled = errors.New("mcp is not enabled")
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("unknown server")
	// ErrUnknownTool: the server has no tool of that name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrUnknownPrompt: no prompt of that name is offered.
	ErrUnknownPrompt = errors.New("unknown prompt")
	// ErrUnknownResource: no resource of that URI, or resource template,
	// is offered.
	ErrUnknownResource = errors.New("unknown resource")
	// ErrUnknownTask: no task of that id is known to whoever asks: it
	// never existed, it expired, or it is another client's.
	ErrUnknownTask = errors.New("unknown task")
	// ErrNotReady: the server is not ready to serve requests.
	ErrNotReady = errors.New("server is not ready")
	// ErrShutdown: the session has shut down.
	ErrShutdown = errors.New("session has shut down")
	// ErrInvalidArguments: arguments do not satisfy the tool's input schema.
	ErrInvalidArguments = errors.New("arguments do not match the tool's input schema")
	// ErrSchema: a tool's schema is unusable, or a result violates its output schema.
	ErrSchema = errors.New("schema problem")
	// ErrUnsupportedVersion: the server and mcpdeck have no protocol
	// revision in common (mcp's sentinel: a server's -32022 answer matches
	// it too).
	ErrUnsupportedVersion = mcp.ErrUnsupportedVersion
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
	// ErrProtocol: the server answered with a JSON-RPC error, or sent what
	// the protocol does not allow (a result that cannot be decoded).
	ErrProtocol = errors.New("protocol error")
	// ErrRefused: the server's current state does not allow the command
	// (a refused transition names the state).
	ErrRefused = errors.New("refused")
	// ErrAuth: the server asked for authorization and authorizing failed
	// (discovery, registration, a token request, a step-up): the server
	// was reached, its authorization could not be completed.
	ErrAuth = errors.New("mcp authorization failed")
)

// ErrSuperseded is returned to a command that a later command replaced
// before it was applied (the latest request wins).
var ErrSuperseded = errors.New("superseded by a later request")

// ErrorKindInfo is everything the runtime says of one error kind, in one
// place. The faces key their own wording (hints) by Kind.
type ErrorKindInfo struct {
	Kind ErrorKind
	// Name is the kind's stable name: JSON output and recordings spell the
	// kind so, and read it back.
	Name string
	// Sentinel is the error that stands for the kind: an *ErrorInfo of the
	// kind matches it with errors.Is, and KindOf classifies an error that
	// wraps it as the kind. Nil only for KindUnknown.
	Sentinel error
	// Also are the wider sentinels an *ErrorInfo of the kind matches too:
	// a timed-out request was also cancelled; a server that exited also
	// closed its transport.
	Also []error
	// Matches are further errors KindOf classifies as the kind (the
	// context's, the process's, the protocol package's).
	Matches []error
	// match classifies errors no sentinel marks (error values, codes).
	match func(error) bool
}

// errorKinds is the table of error kinds. Its order is KindOf's: the first
// row an error matches is its kind (a timeout also wraps ErrCancelled; a
// server whose exit closed the transport exited). A new kind is a constant
// and a row here; TestErrorKindTable checks every row, and each face's
// test that it words every kind.
var errorKinds = []ErrorKindInfo{
	{Kind: KindNeedsLogin, Name: "needs-login", Sentinel: ErrNeedsLogin},
	// A server's error with the user-rejected code (-1) is the
	// operator's declined sampling passed back (a legacy server that ends
	// its tool with it): the same decision a 2026-07-28 request ends with.
	{Kind: KindDeclined, Name: "declined", Sentinel: ErrDeclined, match: rpcCode(mcp.CodeUserRejected)},
	{Kind: KindTimeout, Name: "timeout", Sentinel: ErrTimeout, Also: []error{ErrCancelled}, Matches: []error{context.DeadlineExceeded}},
	{Kind: KindCancelled, Name: "cancelled", Sentinel: ErrCancelled, Matches: []error{context.Canceled}},
	{Kind: KindTooLarge, Name: "too-large", Sentinel: ErrMessageTooLarge, match: mcphttp.IsTooLarge},
	{Kind: KindUnsupportedVersion, Name: "unsupported-version", Sentinel: ErrUnsupportedVersion,
		Matches: []error{mcp.ErrNoMutualVersion}, match: rpcCode(mcp.CodeUnsupportedVersion)},
	// The server answered and asked for authorization, and getting it
	// failed (its metadata, the authorization server, a token request):
	// not the transport's failure, and not a login the person can do.
	{Kind: KindAuth, Name: "auth", Sentinel: ErrAuth,
		Matches: []error{auth.ErrDiscovery, auth.ErrRegistration, auth.ErrAuthorization, auth.ErrToken,
			auth.ErrInsufficientScope, auth.ErrStorage, auth.ErrRedirected}},
	// Nothing answering (refused, unresolvable, timed out), an HTTP status
	// that is no MCP answer, or an answer that cannot be read: the HTTP
	// exchange failed, as the transport's synthesized errors say.
	{Kind: KindTransport, Name: "transport", Sentinel: ErrTransport,
		Matches: []error{mcphttp.ErrUnreachable, mcphttp.ErrHTTPStatus, mcphttp.ErrBadResponse}, match: mcphttp.IsTransport},
	{Kind: KindProtocol, Name: "protocol", Sentinel: ErrProtocol,
		Matches: []error{mcp.ErrTooManyRounds, mcp.ErrBadInputRequired, mcp.ErrUnknownResultType, mcp.ErrBadResult,
			mcp.ErrHeaderMismatch, mcp.ErrMissingCapability},
		match: func(err error) bool { var e *jsonrpc.Error; return errors.As(err, &e) }},
	{Kind: KindExited, Name: "exited", Sentinel: ErrProcessExited, Also: []error{ErrClosed},
		match: func(err error) bool { var e *proc.ExitError; return errors.As(err, &e) }},
	// A refused redirect (put the final URL in mcp.json), credentials
	// the server rejects without asking for a login (a static key) and a
	// TLS handshake that fails (a certificate not trusted for the host,
	// an https URL to a plain HTTP port) are the configuration's to
	// change: trying again fails the same way.
	{Kind: KindConfig, Name: "config", Sentinel: ErrConfig,
		Matches: []error{proc.ErrNotFound, proc.ErrNoCommand, proc.ErrNotExecutable, proc.ErrBadDir,
			mcphttp.ErrRedirected, mcphttp.ErrUnauthorized, mcphttp.ErrBadOptions, mcphttp.ErrTLS}},
	{Kind: KindClosed, Name: "closed", Sentinel: ErrClosed},
	{Kind: KindInvalidArguments, Name: "invalid-arguments", Sentinel: ErrInvalidArguments},
	{Kind: KindSchema, Name: "schema", Sentinel: ErrSchema},
	{Kind: KindNotEnabled, Name: "not-enabled", Sentinel: ErrNotEnabled},
	{Kind: KindNotReady, Name: "not-ready", Sentinel: ErrNotReady},
	{Kind: KindUnknownServer, Name: "unknown-server", Sentinel: ErrUnknownServer},
	{Kind: KindUnknownTool, Name: "unknown-tool", Sentinel: ErrUnknownTool},
	{Kind: KindUnknownPrompt, Name: "unknown-prompt", Sentinel: ErrUnknownPrompt},
	{Kind: KindUnknownResource, Name: "unknown-resource", Sentinel: ErrUnknownResource},
	{Kind: KindUnknownTask, Name: "unknown-task", Sentinel: ErrUnknownTask},
	{Kind: KindToolSwitchedOff, Name: "tool-switched-off", Sentinel: ErrToolSwitchedOff},
	{Kind: KindShutdown, Name: "shutdown", Sentinel: ErrShutdown},
	{Kind: KindSuperseded, Name: "superseded", Sentinel: ErrSuperseded},
	{Kind: KindRefused, Name: "refused", Sentinel: ErrRefused},
	{Kind: KindUnknown, Name: "unknown"},
}

// rpcCode matches a JSON-RPC error object with code.
func rpcCode(code int64) func(error) bool {
	return func(err error) bool {
		var e *jsonrpc.Error
		return errors.As(err, &e) && e.Code == code
	}
}

// kindRows indexes errorKinds by kind.
var kindRows = func() []*ErrorKindInfo {
	if len(errorKinds) != int(numErrorKinds) {
		panic(fmt.Sprintf("runtime: errorKinds has %d rows for %d error kinds: every kind needs its row", len(errorKinds), numErrorKinds))
	}
	rows := make([]*ErrorKindInfo, len(errorKinds))
	for i := range errorKinds {
		r := &errorKinds[i]
		if r.Kind < 0 || int(r.Kind) >= len(rows) || rows[r.Kind] != nil {
			panic(fmt.Sprintf("runtime: error kind %d (%s) is listed twice in errorKinds, or another is missing", r.Kind, r.Name))
		}
		rows[r.Kind] = r
	}
	return rows
}()

// ErrorKinds returns the table of error kinds, in KindOf's order.
func ErrorKinds() []ErrorKindInfo { return slices.Clone(errorKinds) }

// Info returns the kind's row of the table.
func (k ErrorKind) Info() ErrorKindInfo {
	if k < 0 || int(k) >= len(kindRows) {
		return ErrorKindInfo{Kind: k, Name: fmt.Sprintf("ErrorKind(%d)", int(k))}
	}
	return *kindRows[k]
}

func (k ErrorKind) String() string { return k.Info().Name }

// MarshalText writes the kind's name, so JSON output stays readable and stable.
func (k ErrorKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name (recordings, JSON round trips); a
// name this version does not know reads as KindUnknown.
func (k *ErrorKind) UnmarshalText(b []byte) error {
	*k = KindUnknown
	for _, r := range errorKinds {
		if r.Name == string(b) {
			*k = r.Kind
		}
	}
	return nil
}

// sentinels are the errors an *ErrorInfo of kind k matches with errors.Is.
func (k ErrorKind) sentinels() []error {
	if k < 0 || int(k) >= len(kindRows) || kindRows[k].Sentinel == nil {
		return nil
	}
	r := kindRows[k]
	return append([]error{r.Sentinel}, r.Also...)
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
	if e.Server == "" {
		return e.Detail()
	}
	return e.Server + ": " + e.Detail()
}

// Detail is the error as said after its server's name: Error without the
// server in front ("tools/call: connection closed"), for a sentence or a
// row that names the server already. ErrorAfterServer says any error so.
func (e *ErrorInfo) Detail() string {
	// A message that opens with its method names it already:
	// "tools/call (id 9) cancelled: …".
	if e.Method == "" || strings.HasPrefix(e.Message, e.Method+" (") {
		return e.Message
	}
	return e.Method + ": " + e.Message
}

// ErrorAfterServer is err's text for a sentence that names server
// already ("server "demo" has failed: …", "demo/add failed: …"): the
// "demo: " that an *ErrorInfo, a *CallError or an *ArgumentsError of
// that server puts in front is left out, so the faces name the server
// once, as errorInfo leaves out a method the message already names.
func ErrorAfterServer(server string, err error) string {
	text := err.Error()
	var info *ErrorInfo
	var ce *CallError
	var args *ArgumentsError
	named := ""
	switch {
	case errors.As(err, &ce):
		named = ce.Info.Server
	case errors.As(err, &info):
		named = info.Server
	case errors.As(err, &args):
		named = args.Server
	}
	if named != server {
		return text
	}
	return strings.TrimPrefix(text, server+": ")
}

// AboutServer wraps err in sentence, a sentence that names server
// already: its text is "sentence: " and ErrorAfterServer's, and
// errors.Is and errors.As see err (its kind, its hint, its exit code).
func AboutServer(sentence, server string, err error) error {
	return &aboutServerError{text: sentence + ": " + ErrorAfterServer(server, err), err: err}
}

type aboutServerError struct {
	text string
	err  error
}

func (e *aboutServerError) Error() string { return e.text }
func (e *aboutServerError) Unwrap() error { return e.err }

// Unwrap lets errors.Is match the kind's sentinels.
func (e *ErrorInfo) Unwrap() []error { return e.Kind.sentinels() }

// ResourceMissing reports whether the error is a server's answer that the
// resource asked for does not exist: resources/read refused with -32602
// (since 2026-07-28, and in some older servers) or -32002 (before).
func (e *ErrorInfo) ResourceMissing() bool {
	return e.Kind == KindProtocol && e.Method == mcp.MethodReadResource &&
		(e.Code == CodeInvalidParams || e.Code == mcp.CodeResourceNotFound)
}

// kindError is an error of the runtime's own whose message says it all:
// it matches its kind's sentinel without the sentinel's words in front.
type kindError struct {
	sentinel error
	msg      string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.sentinel }

// CallError is a failed request: the error as data (Info), unwrapping to
// the underlying error so errors.As finds a *RPCError, *ClosedError or
// *CancelledError, and errors.Is the kind's sentinels.
type CallError struct {
	Info ErrorInfo
	Err  error
}

func (e *CallError) Error() string { return e.Info.Error() }

// Unwrap returns the cause and the kind's sentinels.
func (e *CallError) Unwrap() []error { return append([]error{e.Err}, e.Info.Kind.sentinels()...) }

// ArgumentsError lists the schema violations of a call's arguments.
type ArgumentsError struct {
	Server, Tool string
	Fields       []FieldError
	// Example is a skeleton of arguments the schema describes (required
	// fields, defaults, first choices), compact; nil when there is none
	// worth showing (see ExampleArguments).
	Example json.RawMessage
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

// KindOf classifies any error the runtime returns (or wraps): the kind an
// *ErrorInfo carries, else the first row of errorKinds the error matches.
func KindOf(err error) ErrorKind {
	var info *ErrorInfo
	var cancelled *jsonrpc.CancelledError
	switch {
	case err == nil:
		return KindUnknown
	case errors.As(err, &info):
		return info.Kind
	case errors.As(err, &cancelled) && cancelled.Timeout && !cancelled.Unwritten && !cancelled.Arrived.Empty():
		// It timed out while the server sent something else (a wrong id,
		// a notification instead of a response): the server's fault. A
		// cancel by the user is only a cancel, whatever came meanwhile;
		// a request that never got written is a timeout of its own.
		return KindProtocol
	}
	for i := range errorKinds {
		if errorKinds[i].matches(err) {
			return errorKinds[i].Kind
		}
	}
	return KindUnknown
}

// matches reports whether err is of the row's kind.
func (r *ErrorKindInfo) matches(err error) bool {
	if r.Sentinel != nil && errors.Is(err, r.Sentinel) || r.match != nil && r.match(err) {
		return true
	}
	for _, m := range r.Matches {
		if errors.Is(err, m) {
			return true
		}
	}
	return false
}

// errorInfo turns an error into data: its kind, where, and the facts.
func errorInfo(server, method string, err error) *ErrorInfo {
	info := &ErrorInfo{Kind: KindOf(err), Server: server, Method: method, Message: err.Error(), At: time.Now()}
	if method != "" {
		// The transport's errors name their method ("tools/call: connection
		// closed: …"); Error puts it before the message already.
		info.Message = strings.TrimPrefix(info.Message, method+": ")
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		var me *methodError
		if info.Method == "" && errors.As(err, &me) {
			// A failed start names no method to its caller (machine.fail),
			// but its error does: the server's own message alone would
			// not say which request it refused.
			info.Method = me.method
		}
		info.Code, info.Message, info.Data = rpcErr.Code, rpcErr.Message, rpcErr.Data
		if info.Message == "" {
			info.Message = fmt.Sprintf("error %d with no message", rpcErr.Code)
		}
	}
	return info
}

// methodError is a failed request said with its method ("initialize:
// …"), for errorInfo to know the method where the caller does not (a
// failed start).
type methodError struct {
	method string
	err    error
}

// failedIn wraps err, the failure of a request for method.
func failedIn(method string, err error) error { return &methodError{method: method, err: err} }

func (e *methodError) Error() string { return e.method + ": " + e.err.Error() }
func (e *methodError) Unwrap() error { return e.err }

// callError wraps err for a caller of Call, Request and the like.
func callError(server, method string, err error) *CallError {
	return &CallError{Info: *errorInfo(server, method, err), Err: err}
}
