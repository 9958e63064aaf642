package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// rawControl finds the first character of out a terminal would act on:
// anything below space but newline and tab, DEL, C1 controls and bidi
// controls. mcpdeck's own output writes none of them when not on a
// terminal, so any of them came from the server.
func rawControl(out string) (string, bool) {
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			from := max(i-30, 0)
			return fmt.Sprintf("%U at byte %d: …%q…", r, i, out[from:min(i+30, len(out))]), true
		}
	}
	return "", false
}

// TestHostileServerCannotControlTheTerminalFromCommands runs every
// command that shows what a server said against a server that puts escape
// sequences into all of it: no raw control character reaches stdout or
// stderr of the human output, the escapes are shown as visible text, and
// --json stays valid JSON that keeps the server's strings as they were.
func TestHostileServerCannotControlTheTerminalFromCommands(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"hostile": srvFake(jsonrpctest.HostileEscapes)})
	visible := `\x1b]0;pwned\x07`
	human := []struct {
		args []string
		code int
		want string // visible somewhere in stdout or stderr
	}{
		{[]string{"tools"}, ExitOK, `evil\x1b[31m_name`},
		{[]string{"servers"}, ExitOK, "hostile"},
		{[]string{"watch", "--for", "1s", "--stderr"}, ExitOK, "data " + visible},
		{[]string{"call", "hostile", "shout"}, ExitOK, "result " + visible},
		{[]string{"call", "hostile", "rpc_fail"}, ExitConnection, "internal failure " + visible},
		{[]string{"call", "hostile", "echo", `{"text":"\u001b]52;c;eA==\u0007"}`}, ExitOK, `\x1b]52;c;eA==\x07`},
		{[]string{"check", "hostile"}, -1, "hostile"},
	}
	for _, c := range human {
		r := h.run(t, "", c.args...)
		if c.code >= 0 && r.code != c.code {
			t.Errorf("mcpdeck %s: exit %d, want %d\nstderr:\n%s", strings.Join(c.args, " "), r.code, c.code, r.stderr)
		}
		for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if where, bad := rawControl(out); bad {
				t.Errorf("mcpdeck %s: raw control character on %s: %s", strings.Join(c.args, " "), name, where)
			}
		}
		if !strings.Contains(r.stdout+r.stderr, c.want) {
			t.Errorf("mcpdeck %s: %q not shown\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), c.want, r.stdout, r.stderr)
		}
	}

	for _, args := range [][]string{{"tools", "--json"}, {"servers", "--json"}, {"call", "hostile", "shout", "--json"}, {"check", "hostile", "--json"}} {
		r := h.run(t, "", args...)
		if !json.Valid([]byte(r.stdout)) {
			t.Errorf("mcpdeck %s printed invalid JSON:\n%s", strings.Join(args, " "), r.stdout)
		}
		if where, bad := rawControl(r.stdout); bad {
			t.Errorf("mcpdeck %s: raw control character in JSON: %s", strings.Join(args, " "), where)
		}
	}
	var tools toolsOutput
	r := h.run(t, "", "tools", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil {
		t.Fatal(err)
	}
	faithful := false
	for _, tl := range tools.Tools {
		faithful = faithful || tl.ServerTool == jsonrpctest.HostileToolName
	}
	if !faithful {
		t.Errorf("tools --json does not keep the tool name %q as the server sent it", jsonrpctest.HostileToolName)
	}

	r = h.run(t, "", "watch", "--for", "1s", "--json")
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	n := 0
	for sc.Scan() {
		n++
		if !json.Valid(sc.Bytes()) {
			t.Errorf("watch --json line %d is invalid JSON: %q", n, sc.Text())
		}
	}
	if where, bad := rawControl(r.stdout); bad || n == 0 {
		t.Errorf("watch --json: %d lines, raw control: %s", n, where)
	}
}
