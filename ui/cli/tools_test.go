package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

func TestToolsDemoGolden(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	r := h.run(t, "", "tools")
	wantCode(t, r, ExitOK)
	golden.RequireEqual(headlessGolden{t, "tools/demo-table"}, r.stdout)

	r = h.run(t, "", "tools", "demo", "--json")
	wantCode(t, r, ExitOK)
	golden.RequireEqual(headlessGolden{t, "tools/demo-json"}, r.stdout)
	var out toolsOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("tools --json printed invalid JSON: %v", err)
	}
	for _, tool := range out.Tools {
		if tool.Name != "demo__"+tool.ServerTool || len(tool.InputSchema) == 0 {
			t.Errorf("tool %+v lacks its normalized name or input schema", tool)
		}
	}
}

func TestToolsEverything(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	r := h.run(t, "", "tools", "everything")
	wantCode(t, r, ExitOK)
	found := false
	for _, row := range strings.Split(r.stdout, "\n") {
		f := strings.Fields(row)
		found = found || (len(f) > 2 && f[0] == "everything" && f[1] == "echo")
	}
	if !found {
		t.Fatalf("no everything echo row in:\n%s", r.stdout)
	}
}

func TestToolsFailingServer(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":   srvDemo(t, "0"),
		"broken": srvFake(jsonrpctest.ExitEarly),
	})
	// The tools of the servers that work are still listed.
	r := h.run(t, "", "tools")
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stdout, "demo    echo") {
		t.Errorf("the demo tools are missing:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, `server "broken"`) {
		t.Errorf("stderr does not name the failed server:\n%s", r.stderr)
	}

	r = h.run(t, "", "tools", "broken", "--json")
	wantCode(t, r, ExitConnection)
	// Nothing was listed: the error object, not an empty list that reads
	// as a server with no tools (TestJSONErrorObject has the other listings).
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), "{\n  \"error\": {\n    \"kind\": \"exited\"") {
		t.Errorf("tools --json of a failed server printed %q, want the error object", r.stdout)
	}
}

func TestToolsFakeNormalAdHoc(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, nil)
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	env := append(h.env, jsonrpctest.EnvMode+"=normal", headlessMarkEnv+"="+h.mark)
	r := runBin(t, h.dir, env, "", "tools", "--json", "--stdio", path+" "+strings.Join(args, " "))
	wantCode(t, r, ExitOK)
	var out toolsOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, r.stdout)
	}
	// The fake lists its tools over two pages: both must be there.
	names := map[string]bool{}
	for _, tool := range out.Tools {
		names[tool.ServerTool] = true
	}
	for _, want := range []string{"echo", "slow", "big", "crash", "fail"} {
		if !names[want] {
			t.Errorf("tool %q missing from %v", want, names)
		}
	}
}

func TestToolSummaryIsOneLine(t *testing.T) {
	t.Parallel()
	tool := struct{ title, desc, want string }{"T", "line one\n  line two", "T — line one ⏎ line two"}
	if got := toolSummary(toolOf(tool.title, tool.desc)); got != tool.want {
		t.Errorf("toolSummary = %q, want %q", got, tool.want)
	}
	if got := toolSummary(toolOf("Same", "Same")); got != "Same" {
		t.Errorf("toolSummary repeats an equal title: %q", got)
	}
}

func toolOf(title, desc string) runtime.Tool { return runtime.Tool{Title: title, Description: desc} }

// A word hidden from the reader in a description (a zero-width space, a
// string of Unicode tag characters) shows in the list, escaped.
func TestToolSummaryShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	got := toolSummary(toolOf("", "Reads\u200ba file.\U000E0049\U000E0047"))
	if want := `Reads\u200ba file.\U000e0049\U000e0047`; got != want {
		t.Errorf("toolSummary = %q, want %q", got, want)
	}
}
