package runtime

import "testing"

// A tool is found by either of its names, and where one name is both a
// tool's server name and another's mcpdeck name, the first listed wins:
// the same tool for a call, the app host, check and the command line.
func TestLookupTool(t *testing.T) {
	tools := []Tool{
		{Name: "demo__echo", ServerTool: "echo"},
		{Name: "echo", ServerTool: "echo-2"},
	}
	for _, c := range []struct{ name, want string }{
		{"echo", "demo__echo"},
		{"demo__echo", "demo__echo"},
		{"echo-2", "echo"},
	} {
		got, ok := LookupTool(tools, c.name)
		if !ok || got.Name != c.want {
			t.Errorf("LookupTool(%q) = %v, %v; want %s", c.name, got, ok, c.want)
		}
	}
	if got, ok := LookupTool(tools, "nope"); ok {
		t.Errorf("LookupTool(nope) found %v", got)
	}
	if got, _ := LookupTool(tools, "echo"); got != &tools[0] {
		t.Errorf("LookupTool returned a copy, not the listed tool")
	}
}
