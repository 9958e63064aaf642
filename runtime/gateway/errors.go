package gateway

import (
	"encoding/json"
	"errors"
	"fmt"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Sentinel errors of the package.
var (
	// ErrClosed: the gateway has shut down.
	ErrClosed = errors.New("gateway is closed")
	// ErrNoToken: an HTTP gateway on a non-loopback address needs a
	// configured token (gateway.token or MCPDECK_GATEWAY_TOKEN).
	ErrNoToken = errors.New("no configured token")
	// ErrNotLoopback: binding a non-loopback address needs an explicit opt-in.
	ErrNotLoopback = errors.New("address is not a loopback address")
	// ErrWeakToken: a configured token too short or too plain to guard a
	// gateway other machines can reach.
	ErrWeakToken = errors.New("the gateway token is too weak")
	// ErrTooManyClients: the HTTP endpoint keeps Options.MaxHTTPClients
	// sessions and stateless clients at most.
	ErrTooManyClients = errors.New("too many HTTP clients")
)

// The JSON-RPC error codes the gateway answers with besides the standard
// ones and the servers' own (forwarded as they are). They lie in the range
// JSON-RPC leaves to implementations and below the one the 2026-07-28
// revision reserves (-32020…-32099). Every such error carries data
// {"reason": …, "kind": …} and, where it applies, "server" and "rule":
// reason is the gateway's own word, kind the runtime's error kind
// (runtime.ErrorKind's names, as the CLI's JSON errors spell them), so a
// client can switch on kind for the gateway's refusals and for what
// went wrong upstream alike.
const (
	// CodeRefused: the gateway's policy does not let this client reach the
	// server, tool or prompt; data.rule names the rule and where it is written.
	// Also a tool the operator switched off (data.reason "switched-off") or
	// whose changed definition waits for the operator's acceptance
	// ("changed").
	CodeRefused = -32010
	// CodeBusy: the client already has its maximum of requests in flight.
	CodeBusy = -32011
	// CodeUnavailable: the server is not ready, went away mid-call, or MCP
	// was switched off; list again, the offer has changed. Also a request
	// arriving while the gateway shuts down (reason "shutdown").
	CodeUnavailable = -32012
	// CodeTimeout: the request ran out of time (gateway callTimeout).
	CodeTimeout = -32013
	// CodeCancelled: the request was cancelled on mcpdeck's side (the
	// operator, or the gateway shutting down).
	CodeCancelled = -32014
	// CodeRateLimited (-32015, ratelimit.go): over gateway.rateLimit or a
	// tool's limit; data.retryAfterMs says when to try again.
)

// errData is the data of the gateway's own errors.
type errData struct {
	Reason string `json:"reason"`
	Server string `json:"server,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Kind   string `json:"kind"`
	Limit  int    `json:"limit,omitempty"`
}

// rpcError is every error of the gateway's own with data: the kind is
// the runtime's, and required.
func rpcError(code int64, kind runtime.ErrorKind, d errData, format string, args ...any) *jsonrpc.Error {
	d.Kind = kind.String()
	e := jsonrpc.NewError(code, format, args...)
	e.Data, _ = json.Marshal(d)
	return e
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, format, args...)
}

// unknown is the -32602 for a name the gateway does not offer now (a
// tool, prompt, resource, resource template or task), of the runtime's
// kind for it, so a client tells it from malformed params by data.kind.
func unknown(kind runtime.ErrorKind, format string, args ...any) *jsonrpc.Error {
	return rpcError(jsonrpc.CodeInvalidParams, kind, errData{Reason: "unknown"}, format, args...)
}

// refused is the error for a request the policy does not allow.
func refused(what, name, rule string) *jsonrpc.Error {
	return rpcError(CodeRefused, runtime.KindRefused, errData{Reason: "policy", Rule: rule},
		"mcpdeck gateway: %s %q is not available to this client: refused by %s", what, name, rule)
}

// withheld is the error for a call to a tool the operator switched off,
// or whose definition changed since the operator approved it (it may now
// tell the model to do something else), nil for a tool on offer. Both are
// refusals (CodeRefused) whose data.reason says which ("switched-off",
// "changed") and whose message says who can change it, and how.
func withheld(t *runtime.Tool) error {
	switch {
	case t.Disabled:
		return rpcError(CodeRefused, runtime.KindToolSwitchedOff, errData{Reason: "switched-off", Server: t.Server, Rule: "tool switch"},
			"mcpdeck gateway: tool %q is switched off in mcpdeck by its operator; it is not offered until switched on again (mcpdeck tools enable %s %s, or space in mcpdeck's Tools tab)",
			t.Name, t.Server, t.ServerTool)
	case t.Changed != nil:
		why := "its definition changed since the operator approved it"
		if t.Changed.Kind == runtime.ChangeShadows {
			why = fmt.Sprintf("the server added it later, and it takes the name of a tool of server %q", t.Changed.Shadows)
		}
		return rpcError(CodeRefused, runtime.KindRefused, errData{Reason: "changed", Server: t.Server, Rule: "pinned definition"},
			"mcpdeck gateway: tool %q is withheld: %s; it is offered again once the operator accepts it (mcpdeck tools accept %s %s, or a in mcpdeck's Tools tab)",
			t.Name, why, t.Server, t.ServerTool)
	}
	return nil
}

// upstreamError turns an error of a runtime request into what the client
// sees: a server's own JSON-RPC error goes through as it is; everything
// else gets a gateway code and a message saying what happened and what to
// do.
func upstreamError(server, what string, timeout fmt.Stringer, err error) error {
	var rpc *runtime.RPCError
	var ce *runtime.CallError
	kind := runtime.KindOf(err)
	if errors.As(err, &rpc) && kind == runtime.KindProtocol {
		return &jsonrpc.Error{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}
	}
	msg := err.Error()
	if errors.As(err, &ce) {
		msg = ce.Info.Message
	}
	d := errData{Server: server}
	switch kind {
	case runtime.KindUnknownTool, runtime.KindUnknownServer, runtime.KindUnknownPrompt, runtime.KindUnknownResource, runtime.KindUnknownTask:
		d.Reason = "unknown"
		return rpcError(jsonrpc.CodeInvalidParams, kind, d, "unknown %s: %s; list again, the offer has changed", what, msg)
	case runtime.KindNotEnabled, runtime.KindNotReady, runtime.KindClosed, runtime.KindExited, runtime.KindShutdown:
		d.Reason = "unavailable"
		return rpcError(CodeUnavailable, kind, d, "%s is unavailable: server %q %s; list again, the offer has changed", what, server, unavailableWhy(kind, msg))
	case runtime.KindTimeout:
		d.Reason = "timeout"
		// A call's bound is the server's callTimeout or the gateway's,
		// whichever is shorter (CallRequest.AtMost); the runtime's
		// message says which duration ran out.
		return rpcError(CodeTimeout, kind, d, "%s timed out: %s (the server's callTimeout, or the gateway's %s when shorter; progress from the server extends it)", what, msg, timeout)
	case runtime.KindCancelled:
		d.Reason = "cancelled"
		return rpcError(CodeCancelled, kind, d, "%s was cancelled in mcpdeck: %s", what, msg)
	}
	d.Reason = "failed"
	return rpcError(jsonrpc.CodeInternalError, kind, d, "%s failed in mcpdeck: %s", what, msg)
}

func unavailableWhy(kind runtime.ErrorKind, msg string) string {
	switch kind {
	case runtime.KindNotEnabled:
		return "is not served: MCP is switched off in mcpdeck"
	case runtime.KindShutdown:
		return "is not served: mcpdeck is shutting down"
	case runtime.KindClosed, runtime.KindExited:
		return "went away while the request was in flight (" + msg + ")"
	}
	return "is not ready (" + msg + ")"
}

// unsupportedVersion is the -32022 answer to a modern request whose
// version the gateway does not speak.
func unsupportedVersion(requested string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"supported": mcp.ModernVersions(), "requested": requested})
	return &jsonrpc.Error{Code: mcp.CodeUnsupportedVersion,
		Message: fmt.Sprintf("Unsupported protocol version: %s (mcpdeck's gateway speaks %v, and the legacy revisions through initialize)", requested, mcp.ModernVersions()),
		Data:    data}
}

// headerMismatch is the -32020 answer of the modern HTTP transport.
func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(mcp.CodeHeaderMismatch, "Header mismatch: "+format, args...)
}
