package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/styles"
)

// mcpdeck tools SERVER TOOL prints the TUI's detail text; for an MCP App
// its "open" line told the reader of a terminal to "press a in its
// result", a key the command line has not (found by qa3). There it leads
// with the command; the TUI keeps its key.
func TestToolDetailOpenSaysTheCommandOnTheCommandLine(t *testing.T) {
	t.Parallel()
	tool := runtime.Tool{Server: "basic", ServerTool: "get-time", Name: "basic__get-time",
		InputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://get-time/mcp-app.html"}}`)}
	text := ToolDetail(tool, nil, nil, 120)
	if !strings.Contains(text, "open         mcpdeck app open basic get-time (in the TUI: call the tool, then press a in its result)") {
		t.Errorf("the command line's detail does not lead with the command:\n%s", text)
	}
	lines := toolDetailLines(styles.Styles{}, tool, &appDetail{done: true}, 120)
	if joined := strings.Join(lines, "\n"); !strings.Contains(joined, "call the tool, then press a in its result (or: mcpdeck app open basic get-time)") {
		t.Errorf("the TUI's detail lost its key:\n%s", joined)
	}
}

// A tool's title and description show the characters a reader cannot
// see (tool poisoning hides words in them), escaped, in the detail both
// faces print; before, only a changed definition's diff showed them.
func TestToolDetailShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	tool := runtime.Tool{Server: "s", ServerTool: "read", Name: "s__read", Title: "Re\u200bad",
		Description: "Reads a file.\U000E0049\U000E0047", InputSchema: json.RawMessage(`{"type":"object"}`)}
	text := ToolDetail(tool, nil, nil, 120)
	for _, want := range []string{`Re\u200bad`, `Reads a file.\U000e0049\U000e0047`} {
		if !strings.Contains(text, want) {
			t.Errorf("detail lacks %q:\n%s", want, text)
		}
	}
}
