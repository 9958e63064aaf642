package present

import (
	"strings"
	"testing"

	"mcpdeck/runtime"
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
		{"header mismatch", runtime.ErrorInfo{Kind: runtime.KindProtocol, Code: -32020, Message: "Mcp-Name does not match"}, TUI, "x-mcp-header annotations"},
		{"unsupported version", runtime.ErrorInfo{Kind: runtime.KindUnsupportedVersion, Code: -32022, Message: "Unsupported protocol version",
			Data: []byte(`{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}, CLI, "the server speaks 2026-07-28: choose one mcpdeck speaks with --protocol"},
		{"no common version", runtime.ErrorInfo{Kind: runtime.KindUnsupportedVersion, Message: "no mutual protocol version"}, TUI, "set protocol in mcp.json"},
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
