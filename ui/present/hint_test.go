package present

import (
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

func TestHintsForTheModernErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		info runtime.ErrorInfo
		face Face
		want string
	}{
		{"missing capability", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32021, Message: "Missing required client capability",
			Data: []byte(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`)}, CLI, "the server needs elicitation, which mcpdeck did not declare: elicitation needs --elicitation defaults"},
		{"missing sampling", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32021, Message: "Missing required client capability",
			Data: []byte(`{"requiredCapabilities":{"sampling":{}}}`)}, CLI, "the server needs sampling, which mcpdeck did not declare: sampling needs --sampling FILE (a canned reply) or --sampling decline (or the TUI)"},
		{"header mismatch", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32020, Message: "Mcp-Name does not match"}, TUI, "x-mcp-header annotations"},
		{"unsupported version", runtime.ErrorInfo{Kind: runtime.KindUnsupportedVersion, Code: -32022, Message: "Unsupported protocol version",
			Data: []byte(`{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}, CLI, "the server speaks 2026-07-28: choose one mcpdeck speaks with --protocol"},
		{"no common version", runtime.ErrorInfo{Kind: runtime.KindUnsupportedVersion, Message: "no mutual protocol version"}, TUI, "set protocol in mcp.json"},
		// A declined sampling request is answered with --sampling FILE, not
		// with --elicitation (found by qa4 on the TS SDK v2 peer's sample tool).
		{"declined sampling", runtime.ErrorInfo{Kind: runtime.KindDeclined, Method: "tools/call",
			Message: `answering input request "reply" (sampling/createMessage): the sampling request was declined: mcpdeck runs headless with --sampling decline`}, CLI, "--sampling FILE"},
		{"declined sampling, TUI", runtime.ErrorInfo{Kind: runtime.KindDeclined, Method: "tools/call",
			Message: "the sampling request was declined"}, TUI, "write the model's reply"},
		{"declined elicitation", runtime.ErrorInfo{Kind: runtime.KindDeclined, Method: "tools/call",
			Message: "the server asked again for the input after it was declined"}, CLI, "--elicitation defaults"},
		// A refused start is the opening's, not a tool's or a schema's.
		{"refused initialize", runtime.ErrorInfo{Kind: runtime.KindProtocol, Method: "initialize", Code: -32602, Message: "Unsupported protocol version"},
			CLI, "the server refused mcpdeck's initialize, so no session began"},
		{"refused initialize, TUI", runtime.ErrorInfo{Kind: runtime.KindProtocol, Method: "initialize", Code: -32601, Message: "Method not found"},
			TUI, "set protocol in mcp.json"},
		// An exit points at stderr only when there is something there.
		{"exit with stderr", runtime.ErrorInfo{Kind: runtime.KindExited, Message: "connection closed: server process exited with status 1; last stderr line: boom"},
			TUI, "its last stderr lines are in the Logs tab"},
		{"silent exit", runtime.ErrorInfo{Kind: runtime.KindExited, Message: "connection closed: server process exited with status 7"},
			CLI, "exited without a word on stderr: run its command in a terminal"},
		{"silent exit with status 0", runtime.ErrorInfo{Kind: runtime.KindExited, Message: "connection closed: server process exited with status 0"},
			CLI, "check that its command starts an MCP server on stdio and keeps it serving"},
		// No method known: the hint must not read "does not implement ;".
		{"method not found, method unknown", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32601, Message: "Method not found"},
			CLI, "the server does not implement the method mcpdeck sent;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Hint(&tc.info, tc.face); !strings.Contains(got, tc.want) {
				t.Errorf("hint %q; want it to say %q", got, tc.want)
			}
		})
	}
}

func TestDescribeTheEraEvents(t *testing.T) {
	l, ok := Describe(runtime.TaskUpdated{RequestID: 7, Tool: "research", Task: runtime.TaskInfo{TaskID: "t-1", Status: "input_required", Message: "which one?\x1b[2J"}})
	if !ok || l.Kind != "task" || !strings.HasPrefix(l.Text, "task t-1 (research, request 7): input_required: which one?") || strings.Contains(l.Text, "\x1b") {
		t.Errorf("task: %+v", l)
	}
	l, ok = Describe(runtime.ListenChanged{Listen: &runtime.ListenInfo{State: runtime.ListenRetry, Err: "not acknowledged within 5s"}})
	if !ok || l.Kind != "listen" || l.Text != "subscriptions/listen retrying: nothing (not acknowledged within 5s)" {
		t.Errorf("listen: %+v", l)
	}
}

func TestPlanSummaryTellsWhatHappened(t *testing.T) {
	p := runtime.Plan{Add: []string{"a"}, Stop: []string{"b"}, Start: []string{"c"}, Keep: []string{"d", "e"}}
	if got, want := PlanSummary(p), "1 added, 1 stopped, 1 started, 2 kept"; got != want {
		t.Errorf("PlanSummary = %q, want %q", got, want)
	}
	if got := PlanSummary(runtime.Plan{Keep: []string{"d"}}); got != "nothing changed" {
		t.Errorf("PlanSummary of no change = %q", got)
	}
}

// A timeout whose request could not even be written (the server stopped
// reading its input) is not worded as a slow answer: raising the timeout
// would not help. An ordinary timeout keeps its advice, on both faces.
func TestTimeoutHintWhenTheServerStoppedReading(t *testing.T) {
	stuck := runtime.ErrorInfo{Kind: runtime.KindTimeout, Server: "f", Method: "tools/call",
		Message: "tools/call (id 3) cancelled: request timed out after 30s; " + runtime.StoppedReading + ": the request could not be written"}
	slow := runtime.ErrorInfo{Kind: runtime.KindTimeout, Server: "f", Method: "tools/call", Message: "tools/call (id 3) cancelled: request timed out after 30s"}
	for _, face := range []Face{CLI, TUI} {
		if h := Hint(&stuck, face); !strings.Contains(h, "stopped reading") || strings.Contains(h, "did not answer in time") || strings.Contains(h, "raise") {
			t.Errorf("face %d: the hint for a server that stopped reading is %q", face, h)
		}
		if h := Hint(&slow, face); !strings.Contains(h, "did not answer in time") || !strings.Contains(h, "callTimeout") {
			t.Errorf("face %d: the hint for a slow server is %q", face, h)
		}
	}
}

// A server not ready within its startup timeout (its listing was slow,
// say) is told to raise startupTimeout, on both faces; a call's timeout
// callTimeout, and not startupTimeout, which cannot help a call.
func TestTimeoutHintNamesTheSetting(t *testing.T) {
	start := runtime.ErrorInfo{Kind: runtime.KindTimeout, Server: "f",
		Message: "tools/list: tools/list (id 2) cancelled: request timed out: " + runtime.StartupTimedOut + " of 400ms"}
	call := runtime.ErrorInfo{Kind: runtime.KindTimeout, Server: "f", Method: "tools/call", Message: "tools/call (id 3) cancelled: request timed out after 30s"}
	for _, face := range []Face{CLI, TUI} {
		if h := Hint(&start, face); !strings.Contains(h, "raise startupTimeout") || strings.Contains(h, "--timeout") {
			t.Errorf("face %d: the hint for a start that timed out is %q", face, h)
		}
		if h := Hint(&call, face); !strings.Contains(h, "callTimeout") || strings.Contains(h, "startupTimeout") {
			t.Errorf("face %d: the hint for a call that timed out is %q", face, h)
		}
	}
}

// -32602 to resources/read means the resource does not exist (the modern
// code; -32002 before): the hint says so and where to find the ones that
// do, not the generic "invalid params" hint it gives other methods.
func TestHintReadsTheCodeWithTheMethod(t *testing.T) {
	notFound := "the resource does not exist on demo"
	for _, tc := range []struct {
		name    string
		info    runtime.ErrorInfo
		face    Face
		want    string
		notWant string
	}{
		{"read, -32602, TUI", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "resources/read"}, TUI, notFound + ": pick one from its resources in the Resources tab (8)", "rejected the parameters"},
		{"read, -32602, CLI", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "resources/read"}, CLI, notFound + ": list the resources it has with mcpdeck resources demo, and the URIs it can make with --templates", "rejected the parameters"},
		{"read, -32002", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32002, Server: "demo", Method: "resources/read"}, TUI, notFound, "reported an error"},
		{"read, no server", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32002, Method: "resources/read"}, CLI, "does not exist on the server: list the resources it has with mcpdeck resources SERVER", ""},
		{"read, internal error", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32603, Server: "demo", Method: "resources/read"}, TUI, "failed internally", "does not exist"},
		{"call, -32602", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "tools/call"}, TUI, "rejected the parameters", "does not exist"},
		{"call, -32002", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32002, Server: "demo", Method: "tools/call"}, TUI, "reported an error", "does not exist"},
		{"prompt, -32602", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "prompts/get"}, TUI, "demo has no such prompt, or rejected its arguments", ""},
		// server-everything answers an unknown template so (found by qa3): the
		// tools' advice was given.
		{"complete, -32602, CLI", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "completion/complete"}, CLI, "demo has no such prompt or resource template, or no such argument: list them with mcpdeck prompts demo and mcpdeck resources demo --templates", "tools --json"},
		{"complete, -32602, TUI", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32602, Server: "demo", Method: "completion/complete"}, TUI, "see the Prompts (9) and Resources (8) tabs", "Tools tab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Hint(&tc.info, tc.face)
			if !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
				t.Errorf("hint %q; want it to say %q and not %q", got, tc.want, tc.notWant)
			}
		})
	}
}

// A legacy server that ends its tool with the -1 mcpdeck answered its
// sampling request with is told how to answer sampling, as a 2026-07-28
// request that mcpdeck ended is, not how to fill in an elicitation.
func TestDeclinedHintReadsTheServersRejection(t *testing.T) {
	for _, info := range []runtime.ErrorInfo{
		{Kind: runtime.KindDeclined, Server: "s", Method: "tools/call", Code: mcp.CodeUserRejected,
			Message: "multi-round-trip: calling \"sampling/createMessage\": User rejected sampling request"},
		{Kind: runtime.KindDeclined, Server: "s", Method: "tools/call", Message: runtime.SamplingDeclined + ": headless"},
	} {
		if h := Hint(&info, CLI); !strings.Contains(h, "--sampling FILE") {
			t.Errorf("the hint for %q is %q", info.Message, h)
		}
	}
}
