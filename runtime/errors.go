package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/proc"
)

// CallError is a failed request, made actionable: which server and
// method, the protocol error's code, message and data, and a hint of what
// to do. It unwraps to the underlying error, so errors.Is works with
// jsonrpc.ErrTimeout, jsonrpc.ErrClosed and the runtime's sentinels.
type CallError struct {
	Info ErrorInfo
	Err  error
}

func (e *CallError) Error() string { return e.Info.Error() }
func (e *CallError) Unwrap() error { return e.Err }

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
	return s + "\n(fix them, or send anyway with --no-validate)"
}

// Unwrap matches ErrInvalidArguments.
func (e *ArgumentsError) Unwrap() error { return ErrInvalidArguments }

// actionable turns an error into an ErrorInfo with a hint.
func actionable(server, method string, err error) *ErrorInfo {
	info := &ErrorInfo{Server: server, Method: method, Message: err.Error(), At: time.Now()}
	var rpcErr *jsonrpc.Error
	var exit *proc.ExitError
	switch {
	case errors.As(err, &rpcErr):
		info.Code, info.Message, info.Data = rpcErr.Code, rpcErr.Message, rpcErr.Data
		if info.Message == "" {
			info.Message = fmt.Sprintf("error %d with no message", rpcErr.Code)
		}
		switch rpcErr.Code {
		case jsonrpc.CodeMethodNotFound:
			info.Hint = fmt.Sprintf("the server does not implement %s; check the capabilities it declared", method)
		case jsonrpc.CodeInvalidParams:
			info.Hint = "the server rejected the parameters: check the name and arguments against its schema (mcpdeck tools --json)"
		case jsonrpc.CodeInternalError:
			info.Hint = "the server failed internally: its stderr (Logs) may say why"
		case mcphttp.CodeTransportError:
			info.Hint = "the HTTP exchange for this request failed: check the url, and that the server is up and answers MCP there"
		case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest:
			info.Hint = "the server could not read the request: this is a bug in the server or in mcpdeck; the Traffic view shows the frames"
		default:
			info.Hint = "the server reported an error; its stderr (Logs) may say more"
		}
	case errors.Is(err, jsonrpc.ErrTimeout):
		info.Hint = "the server did not answer in time: raise the timeout (--timeout, or callTimeout/startupTimeout in mcp.json) or check the server's stderr"
	case errors.Is(err, jsonrpc.ErrCancelled), errors.Is(err, context.Canceled):
		info.Hint = "the request was cancelled; the server was told with notifications/cancelled"
	case errors.Is(err, jsonrpc.ErrMessageTooLarge):
		info.Hint = "the server sent a message over the size limit; make the tool return less, or raise the limit"
	case errors.As(err, &exit):
		info.Hint = "the server process exited; its last stderr lines are in Logs; mcpdeck reconnects automatically where configured, or reconnect it (R in the TUI)"
	case errors.Is(err, proc.ErrNotFound), errors.Is(err, proc.ErrNoCommand), errors.Is(err, proc.ErrNotExecutable), errors.Is(err, proc.ErrBadDir):
		info.Hint = "fix the server's command or cwd in its configuration"
	case errors.Is(err, ErrUnsupportedVersion):
		info.Hint = "the server speaks a protocol revision mcpdeck does not; upgrade one of them"
	case errors.Is(err, jsonrpc.ErrClosed):
		info.Hint = "the connection closed; mcpdeck reconnects automatically where configured, or reconnect it (R in the TUI)"
	case errors.Is(err, ErrNotEnabled):
		info.Hint = "turn MCP on first (m in the TUI, --enable)"
	case errors.Is(err, ErrNotReady):
		info.Hint = "wait for the server to be ready, or reconnect it"
	}
	return info
}
