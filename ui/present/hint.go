// Package present owns how mcpdeck words things for people: hints for
// errors, and (shared by the TUI and the CLI) the small formatting rules
// both faces follow. The runtime returns kinds and facts; the words are
// chosen here, once, for each face.
package present

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/mcp"
)

// Face is where text is shown: the keys and flags a hint may name differ.
type Face int

// The faces.
const (
	CLI Face = iota // the headless command line: hints name flags and commands
	TUI             // the terminal UI: hints name keys and tabs
)

// pick returns the wording for face.
func (f Face) pick(cli, tui string) string {
	if f == TUI {
		return tui
	}
	return cli
}

// Hint says what to do about an error, for face; "" when there is nothing
// useful to add. A protocol error's code is read with the method it
// answered (info.Method): -32602 is "invalid params" in general, but to
// resources/read it means the resource does not exist.
func Hint(info *runtime.ErrorInfo, face Face) string {
	if info == nil {
		return ""
	}
	if h := hints[info.Kind]; h != nil {
		return h(info, face)
	}
	return ""
}

// hints words what to do about each kind of error, keyed by the runtime's
// table of kinds (runtime.ErrorKinds): every kind has an entry, nil where
// the error's own message says all there is to say.
var hints = map[runtime.ErrorKind]func(*runtime.ErrorInfo, Face) string{
	runtime.KindUnknown:            nil,
	runtime.KindShutdown:           nil, // only seen while mcpdeck itself ends
	runtime.KindSuperseded:         nil, // a later request of the person's own replaced it
	runtime.KindRefused:            nil, // the message names the state that refused
	runtime.KindProtocol:           protocolHint,
	runtime.KindTransport:          transportHint,
	runtime.KindTimeout:            timeoutHint,
	runtime.KindCancelled:          fixed("the request was cancelled; the server was told with notifications/cancelled"),
	runtime.KindDeclined:           declinedHint,
	runtime.KindTooLarge:           fixed("the server sent a message over the size limit; make the tool return less, or raise maxMessageSize"),
	runtime.KindExited:             exitedHint,
	runtime.KindClosed:             byFace("the connection closed; run the command again", "the connection closed; mcpdeck reconnects automatically where configured, or press R"),
	runtime.KindConfig:             byFace("fix the server's configuration (its command, cwd, url, headers or inputs); mcpdeck does not retry it as it is", "fix the server's configuration (its command, cwd, url, headers or inputs), then press r to reload; mcpdeck does not retry it as it is"),
	runtime.KindUnsupportedVersion: versionHint,
	runtime.KindNeedsLogin:         byFace("or add --login to log in now, in a browser", "press i to log in, in a browser"),
	runtime.KindInvalidArguments:   byFace("fix the arguments, or send anyway with --no-validate", "fix the fields, or switch validation off in the form"),
	runtime.KindSchema:             byFace("the tool's schema is the server's to fix (mcpdeck check SERVER shows where); --no-validate sends the call without checking", "the tool's schema is the server's to fix; ctrl+t in the form sends the call without checking"),
	runtime.KindNotEnabled:         byFace("MCP is off: pass --enable", "MCP is off: press m to turn it on"),
	runtime.KindNotReady:           byFace("wait for the server to be ready, or reconnect it", "wait for the server to be ready, or press R to reconnect it"),
	runtime.KindUnknownServer:      byFace("list the configured servers with: mcpdeck servers", "it is not in the configuration any more: press r to reload it, or pick a server from the list"),
	runtime.KindToolSwitchedOff:    nil, // the message says how to switch it on
	runtime.KindUnknownTool: func(info *runtime.ErrorInfo, face Face) string {
		return face.pick(fmt.Sprintf("list the server's tools with: mcpdeck tools %s", info.Server),
			"the server does not list it now: pick one from its tools in the Tools tab (2)")
	},
	runtime.KindUnknownPrompt: func(info *runtime.ErrorInfo, face Face) string {
		return face.pick(fmt.Sprintf("list the prompts and their arguments with: mcpdeck prompts %s", info.Server),
			"it is not offered now: pick one from the Prompts tab (9)")
	},
	runtime.KindUnknownResource: func(info *runtime.ErrorInfo, face Face) string {
		return face.pick(fmt.Sprintf("list the resources with: mcpdeck resources %s, and the URIs the templates make with --templates", info.Server),
			"it is not offered now: pick one from the Resources tab (8), or fill in one of its templates there")
	},
	runtime.KindAuth:        authHint,
	runtime.KindUnknownTask: fixed("the task ended and expired, belongs to another client, or was never started (mcpdeck keeps tasks in memory only): send the request again"),
}

// fixed is a hint worded the same for every face.
func fixed(h string) func(*runtime.ErrorInfo, Face) string {
	return func(*runtime.ErrorInfo, Face) string { return h }
}

// byFace is a hint worded for the CLI and for the TUI.
func byFace(cli, tui string) func(*runtime.ErrorInfo, Face) string {
	return func(_ *runtime.ErrorInfo, face Face) string { return face.pick(cli, tui) }
}

// exitedHint: a server process that said why on stderr is pointed at
// that; one that said nothing is not (the Logs tab would be empty), and one
// that ended with status 0 of its own accord is likely no stdio MCP
// server at all, or one that never started serving.
func exitedHint(info *runtime.ErrorInfo, face Face) string {
	switch {
	case strings.Contains(info.Message, "stderr"):
		return face.pick("the server process exited; its last stderr lines say why", "the server process exited; its last stderr lines are in the Logs tab")
	case strings.Contains(info.Message, "exited with status 0"):
		return "the server process ended by itself, without an error and without a word on stderr: check that its command starts an MCP server on stdio and keeps it serving; a FastMCP script needs mcp.run() at its end"
	}
	return "the server process exited without a word on stderr: run its command in a terminal to see why"
}

// timeoutHint says how to give a slow server more time, unless the
// request never reached it: a server that stopped reading its input is
// stuck, and more time would not help.
// transportHint: the HTTP transport's own messages for a server that did
// not answer (refused, unresolvable, timed out) already say what to
// check; the rest (an HTTP status, an answer that is not MCP) get the
// general advice.
func transportHint(info *runtime.ErrorInfo, _ Face) string {
	if strings.Contains(info.Message, "; check ") {
		return ""
	}
	return "the HTTP exchange failed: check the url, and that the server is up and answers MCP there"
}

// authHint: the server was reached and asked for authorization, which
// failed; a message that already names the command to run needs no more.
func authHint(info *runtime.ErrorInfo, face Face) string {
	if strings.Contains(info.Message, "mcpdeck auth login") {
		return ""
	}
	return face.pick("the server asks for MCP authorization and it could not be completed: mcpdeck auth status shows what is stored; mcpdeck auth login "+info.Server+" tries again",
		"the server asks for MCP authorization and it could not be completed: press i to log in again")
}

func timeoutHint(info *runtime.ErrorInfo, face Face) string {
	if strings.Contains(info.Message, runtime.StoppedReading) {
		return face.pick("the server stopped reading what mcpdeck sends it, so a longer timeout would not help: it is stuck or busy; its stderr may say why; restart it",
			"the server stopped reading what mcpdeck sends it, so a longer timeout would not help: it is stuck or busy; its stderr (Logs tab) may say why; press R to restart it")
	}
	if strings.Contains(info.Message, runtime.EmptyArgumentCause) {
		return "" // the message says what to fix; more time would not help
	}
	if strings.Contains(info.Message, runtime.StartupTimedOut) {
		const why = "raise startupTimeout in its mcp.json entry: it bounds starting the server, initialize and listing its tools, prompts and resources (callTimeout bounds the calls once it is ready)"
		return face.pick("the server was not ready in time: "+why+"; or check the server's stderr",
			"the server was not ready in time: "+why+", then press R; or check its stderr (Logs tab)")
	}
	return face.pick("the server did not answer in time: raise the call's timeout (--timeout, or callTimeout in mcp.json) or check the server's stderr",
		"the server did not answer in time: raise callTimeout in mcp.json, or check its stderr (Logs tab)")
}

// declinedHint says how to answer what was declined: a sampling request
// wants a reply (mcpdeck's own words, or a legacy server's -1 passed
// back), an elicitation the form's fields.
func declinedHint(info *runtime.ErrorInfo, face Face) string {
	if strings.Contains(info.Message, runtime.SamplingDeclined) || info.Code == mcp.CodeUserRejected {
		return face.pick("answer it: --sampling FILE gives a canned reply, or call it from the TUI, which shows the request for you to answer",
			"call it again and write the model's reply instead of declining it")
	}
	return face.pick("answer it: --elicitation defaults accepts with the schema's defaults, or call it from the TUI, which asks with a form",
		"call it again and accept the server's form instead of declining it")
}

// protocolHint reads a JSON-RPC error's code, with the method it answered.
func protocolHint(info *runtime.ErrorInfo, face Face) string {
	if h := methodHint(info, face); h != "" {
		return h
	}
	switch info.Code {
	case runtime.CodeMethodNotFound:
		if info.Method == "" {
			return "the server does not implement the method mcpdeck sent; check the capabilities it declared"
		}
		return fmt.Sprintf("the server does not implement %s; check the capabilities it declared", info.Method)
	case runtime.CodeInvalidParams:
		return face.pick("the server rejected the parameters: check the name and arguments against its schema (mcpdeck tools --json)",
			"the server rejected the parameters: check the name and arguments against its schema (Tools tab)")
	case runtime.CodeInternalError:
		return face.pick("the server failed internally: its stderr may say why", "the server failed internally: its stderr (Logs tab) may say why")
	case mcp.CodeHeaderMismatch:
		return "the server found the request's HTTP headers (Mcp-Method, Mcp-Name, Mcp-Param-*) and its body disagreeing; mcpdeck listed the tools again and retried once: if it persists, the tool's x-mcp-header annotations and the server disagree, which is the server's to fix"
	case mcp.CodeMissingCapability:
		need := "a client capability"
		var names []string
		if err := mcp.FromCode(info.Code, info.Message, info.Data); err != nil {
			if mc, ok := err.(*mcp.MissingCapabilityError); ok && len(mc.Names()) > 0 {
				names = mc.Names()
				need = strings.Join(names, ", ")
			}
		}
		return face.pick("the server needs "+need+", which mcpdeck did not declare: "+capabilityRemedies(names),
			"the server needs "+need+", which mcpdeck did not declare: roots need a root directory (--root, or roots in mcp.json)")
	case runtime.CodeParseError, runtime.CodeInvalidRequest:
		return face.pick("the server could not read the request: a bug in the server or in mcpdeck; mcpdeck watch --json shows the frames",
			"the server could not read the request: a bug in the server or in mcpdeck; the Traffic tab shows the frames")
	}
	return face.pick("the server reported an error; its stderr may say more", "the server reported an error; its stderr (Logs tab) may say more")
}

// capabilityRemedies says how a headless command declares the client
// capabilities a server asked for: those named, or every one it can.
func capabilityRemedies(names []string) string {
	remedies := []struct{ name, how string }{
		{"elicitation", "elicitation needs --elicitation defaults (or the TUI)"},
		{"sampling", "sampling needs --sampling FILE (a canned reply) or --sampling decline (or the TUI)"},
		{"roots", "roots need --root"},
	}
	var some, all []string
	for _, r := range remedies {
		all = append(all, r.how)
		if slices.Contains(names, r.name) {
			some = append(some, r.how)
		}
	}
	if len(some) == 0 {
		some = all
	}
	return strings.Join(some, ", ")
}

// versionHint names the revisions the server speaks, when it said.
func versionHint(info *runtime.ErrorInfo, face Face) string {
	if err := mcp.FromCode(info.Code, info.Message, info.Data); err != nil {
		if uv, ok := err.(*mcp.UnsupportedVersionError); ok && len(uv.Supported) > 0 {
			return face.pick("the server speaks "+strings.Join(uv.Supported, ", ")+": choose one mcpdeck speaks with --protocol (auto tries them all)",
				"the server speaks "+strings.Join(uv.Supported, ", ")+": set protocol in mcp.json to one mcpdeck speaks, or auto")
		}
	}
	return face.pick("choose a revision both speak with --protocol (auto tries them all), or upgrade one of them",
		"set protocol in mcp.json to a revision both speak (auto tries them all), or upgrade one of them")
}

// methodHint is the hint for a protocol error whose code means something
// particular for the method it answered; "" when it does not.
func methodHint(info *runtime.ErrorInfo, face Face) string {
	server, named := info.Server, " "+info.Server
	if server == "" {
		server, named = "the server", " SERVER"
	}
	switch info.Method {
	case "initialize":
		// The session's opening refused: no capability, schema or tool is
		// to blame yet.
		return face.pick("the server refused mcpdeck's initialize, so no session began: its message says why, and its stderr may say more; if it wants another protocol revision, choose one with --protocol",
			"the server refused mcpdeck's initialize, so no session began: its message says why, and its stderr (Logs tab) may say more; if it wants another protocol revision, set protocol in mcp.json")
	case "resources/read":
		if info.ResourceMissing() {
			return face.pick(
				fmt.Sprintf("the resource does not exist on %s: list the resources it has with mcpdeck resources%s, and the URIs it can make with --templates", server, named),
				fmt.Sprintf("the resource does not exist on %s: pick one from its resources in the Resources tab (8), or fill in one of its templates there", server))
		}
	case "prompts/get":
		if info.Code == runtime.CodeInvalidParams {
			return face.pick(
				fmt.Sprintf("%s has no such prompt, or rejected its arguments: list its prompts and their arguments with mcpdeck prompts%s", server, named),
				fmt.Sprintf("%s has no such prompt, or rejected its arguments: its prompts and their arguments are in the Prompts tab (9)", server))
		}
	case "completion/complete":
		if info.Code == runtime.CodeInvalidParams {
			return face.pick(
				fmt.Sprintf("%s has no such prompt or resource template, or no such argument: list them with mcpdeck prompts%s and mcpdeck resources%s --templates", server, named, named),
				fmt.Sprintf("%s has no such prompt or resource template, or no such argument: see the Prompts (9) and Resources (8) tabs", server))
		}
	}
	return ""
}

// ErrorText renders any error for face: the message, then the hint its
// kind suggests in parentheses, clean (see Clean): an error's message
// often quotes what a server said.
// On the command line, arguments a tool's schema refused are followed by
// the skeleton the schema describes (the TUI has its form for that).
func ErrorText(err error, face Face) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	if h := Hint(InfoOf(err), face); h != "" && !loginNotFinished(err) {
		text += " (" + h + ")"
	}
	var args *runtime.ArgumentsError
	if face == CLI && errors.As(err, &args) && len(args.Example) > 0 {
		text += "\n  arguments the schema describes, to start from: " + string(args.Example)
	}
	return Clean(text)
}

// loginNotFinished reports a browser login that timed out: the person did
// not finish it, no server failed to answer, and its message already says
// what to do.
func loginNotFinished(err error) bool {
	return errors.Is(err, auth.ErrAuthorization) && runtime.KindOf(err) == runtime.KindTimeout
}

// InfoOf returns the error's data: the *runtime.ErrorInfo it carries, or
// one classified from it.
func InfoOf(err error) *runtime.ErrorInfo {
	var ce *runtime.CallError
	if errors.As(err, &ce) {
		return &ce.Info
	}
	var info *runtime.ErrorInfo
	if errors.As(err, &info) {
		return info
	}
	return &runtime.ErrorInfo{Kind: runtime.KindOf(err), Message: err.Error()}
}
