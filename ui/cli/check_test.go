package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/check"
	"mcpdeck/ui/present"
)

// checkGolden renames a test so golden.RequireEqual reads
// testdata/check/<name>.golden (regenerate with go test -update).
type checkGolden struct {
	testing.TB
	name string
}

func (g checkGolden) Name() string { return "check/" + g.name }

// checkOut parses mcpdeck check --json.
type checkOut struct {
	Servers []struct {
		Server    string `json:"server"`
		Transport string `json:"transport"`
		Passed    bool   `json:"passed"`
		Items     []struct {
			ID, Name, Status, Reason string
			DurationMs               *int64 `json:"durationMs"`
		} `json:"items"`
	} `json:"servers"`
}

func parseCheck(t *testing.T, r result) checkOut {
	t.Helper()
	var out checkOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("check --json printed no JSON (%v):\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	for _, s := range out.Servers {
		if len(s.Items) != len(check.IDs()) {
			t.Errorf("%s: %d items, want %d", s.Server, len(s.Items), len(check.IDs()))
		}
		for i, it := range s.Items {
			if i < len(check.IDs()) && it.ID != check.IDs()[i] {
				t.Errorf("%s: item %d is %q, want %q", s.Server, i, it.ID, check.IDs()[i])
			}
			if it.Name == "" || it.Reason == "" || it.DurationMs == nil {
				t.Errorf("%s: item %s lacks a name, reason or durationMs", s.Server, it.ID)
			}
		}
	}
	return out
}

// statuses maps each item id of a server to its status.
func (o checkOut) statuses(server string) map[string]string {
	m := map[string]string{}
	for _, s := range o.Servers {
		if s.Server == server {
			for _, it := range s.Items {
				m[it.ID] = it.Status + ": " + it.Reason
			}
		}
	}
	return m
}

func TestCheckDemoServerPasses(t *testing.T) {
	t.Parallel()
	bin := mcpdeckBin(t)
	r := runBin(t, t.TempDir(), nil, "", "check", "--json", "--stdio", bin+" demo-server")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := parseCheck(t, r)
	if len(out.Servers) != 1 || !out.Servers[0].Passed || out.Servers[0].Transport != "stdio" {
		t.Fatalf("servers = %+v, want one passed stdio server", out.Servers)
	}
	for id, st := range out.statuses(adHocName) {
		if id == check.IDAuthorization && strings.HasPrefix(st, "SKIP") {
			continue // HTTP only
		}
		if !strings.HasPrefix(st, "PASS") {
			t.Errorf("%s = %s, want PASS on the demo server", id, st)
		}
	}

	// The human table: one row per item and the summary; not a terminal,
	// so it is printed whole at the end.
	r = runBin(t, t.TempDir(), nil, "", "check", "--stdio", bin+" demo-server")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2+len(check.IDs())+1 || !strings.HasPrefix(lines[1], "STATUS") {
		t.Fatalf("table has %d lines, want heading, header, %d rows, summary:\n%s", len(lines), len(check.IDs()), r.stdout)
	}
	// Every item passes but authorization, which a stdio server skips.
	if want := fmt.Sprintf("adhoc: passed on legacy 2025-11-25: %d passed, 0 warnings, 0 failed, 1 skipped", len(check.IDs())-1); lines[len(lines)-1] != want {
		t.Errorf("summary = %q, want %q", lines[len(lines)-1], want)
	}
}

func TestCheckServerEverythingPasses(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	r := runBin(t, t.TempDir(), nil, "", "check", "--json", "--stdio", node+" "+script)
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := parseCheck(t, r)
	st := out.statuses(adHocName)
	for id, s := range st {
		if strings.HasPrefix(s, "FAIL") {
			t.Errorf("%s = %s on server-everything", id, s)
		}
	}
	// It keeps running after stdin EOF while timers are active: SIGTERM
	// is a WARN at worst, never a FAIL.
	if s := st[check.IDShutdown]; !strings.HasPrefix(s, "PASS") && !strings.HasPrefix(s, "WARN") {
		t.Errorf("shutdown = %s, want PASS or WARN", s)
	}
	for _, id := range []string{check.IDInitialize, check.IDToolsList, check.IDCall, check.IDInvalidInput, check.IDCancellation, check.IDReconnect} {
		if !strings.HasPrefix(st[id], "PASS") {
			t.Errorf("%s = %s, want PASS on the reference server", id, st[id])
		}
	}

	// check lists the tools a client sees, as tools does: server-everything
	// offers trigger-elicitation-request only to a client that declares
	// elicitation, which every other command does.
	r = runBin(t, t.TempDir(), nil, "", "tools", "--json", "--stdio", node+" "+script)
	var tools toolsOutput
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil || r.code != ExitOK {
		t.Fatalf("tools --json: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if want := "PASS: " + strconv.Itoa(len(tools.Tools)) + " tools "; !strings.HasPrefix(st[check.IDToolsList], want) {
		t.Errorf("tools-list = %s; tools lists %d tools: want %q", st[check.IDToolsList], len(tools.Tools), want)
	}
}

// fakeConfig writes an mcp.json of fake servers, each marked so the test
// can find any process of theirs left behind.
func fakeConfig(t *testing.T, mark string, servers map[string]jsonrpctest.Mode) string {
	t.Helper()
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	defs := map[string]any{}
	for name, mode := range servers {
		env := jsonrpctest.ServerEnv(mode)
		env["MCPDECK_CHECK_TEST_MARK"] = mark
		defs[name] = map[string]any{"command": path, "args": args, "env": env}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": defs})
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestCheckFailsMisbehavingServers(t *testing.T) {
	t.Parallel()
	mark := "check-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := fakeConfig(t, mark, map[string]jsonrpctest.Mode{
		"crash":   jsonrpctest.CrashOnCall,
		"wrongid": jsonrpctest.WrongID,
		"noisy":   jsonrpctest.Noise,
		"good":    jsonrpctest.Normal,
	})
	r := runBin(t, t.TempDir(), nil, "", "--config", cfg, "check", "--json", "--timeout", "2s")
	if r.code != ExitToolError {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := parseCheck(t, r)
	if len(out.Servers) != 4 {
		t.Fatalf("checked %d servers, want every enabled one (4)", len(out.Servers))
	}
	for server, item := range map[string]string{"crash": check.IDCall, "wrongid": check.IDResponseIDs, "noisy": check.IDStdoutClean} {
		if s := out.statuses(server)[item]; !strings.HasPrefix(s, "FAIL") {
			t.Errorf("%s: %s = %s, want FAIL", server, item, s)
		}
	}
	for _, s := range out.Servers {
		if s.Passed != (s.Server == "good") {
			t.Errorf("%s: passed = %v", s.Server, s.Passed)
		}
	}
	noProcessMarked(t, mark)

	// Named servers only, human output: the FAIL row and the verdict.
	r = runBin(t, t.TempDir(), nil, "", "--config", cfg, "check", "crash", "--timeout", "2s")
	if r.code != ExitToolError {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "crash (stdio, legacy 2025-11-25)\n") || !strings.Contains(r.stdout, "crash: FAILED on legacy 2025-11-25:") ||
		!regexpLine(r.stdout, "FAIL", check.IDCall) || strings.Contains(r.stdout, "wrongid") {
		t.Errorf("human output lacks the failed call row or the verdict, or shows another server:\n%s", r.stdout)
	}
	noProcessMarked(t, mark)
}

func regexpLine(out, status, id string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == status && f[1] == id {
			return true
		}
	}
	return false
}

func TestCheckUsageErrors(t *testing.T) {
	t.Parallel()
	cfg := fakeConfig(t, "usage", map[string]jsonrpctest.Mode{"good": jsonrpctest.Normal})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--args", `{"a":1}`, "--stdio", "true"}, "--tool"},
		{[]string{"check", "--tool", "echo", "--args", `[1]`, "--stdio", "true"}, "JSON object"},
		{[]string{"--config", cfg, "check", "nosuch"}, `no server "nosuch"`},
	} {
		r := runBin(t, t.TempDir(), nil, "", tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestCheckOutputGolden pins the human and JSON renderings of a report.
func TestCheckOutputGolden(t *testing.T) {
	t.Parallel()
	reports := []check.Report{
		{Server: "demo", Transport: "stdio", Items: []check.Item{
			{ID: check.IDInitialize, Name: check.Name(check.IDInitialize), Status: check.Pass, Reason: "protocol 2025-11-25, demo 1.0.0, capabilities: tools", Duration: 12 * time.Millisecond},
			{ID: check.IDShutdown, Name: check.Name(check.IDShutdown), Status: check.Warn, Reason: "kept running 2.0s after stdin closed; SIGTERM stopped it: exit when stdin closes, as the stdio transport asks", Duration: 2 * time.Second},
			{ID: check.IDNoNotification, Name: check.Name(check.IDNoNotification), Status: check.Skip, Reason: "skipped: initialization failed"},
		}},
		{Server: "broken", Transport: "http", Items: []check.Item{
			{ID: check.IDInitialize, Name: check.Name(check.IDInitialize), Status: check.Fail, Reason: "initialization failed: connection refused"},
		}},
		// A reason quoting a server's multi-line error: its lines stay
		// lines of the REASON column, the ones past the sixth counted.
		{Server: "py", Transport: "http", Items: []check.Item{
			{ID: check.IDInitialize, Name: check.Name(check.IDInitialize), Status: check.Fail, Reason: "initialization failed: Traceback (most recent call last):\n" +
				"  File \"/srv/app/server.py\", line 88, in handle_initialize\n    cfg = load_settings(env)\n" +
				"  File \"/srv/app/settings.py\", line 12, in load_settings\n    return parse(env[\"APP_SETTINGS\"])\n\n" +
				"  File \"/srv/app/settings.py\", line 30, in parse\n    raise KeyError(name)\nKeyError: 'APP_SETTINGS'"},
		}},
	}
	var human bytes.Buffer
	printCheckReports(&human, reports)
	golden.RequireEqual(checkGolden{t, "human"}, human.Bytes())

	var streamed bytes.Buffer
	for i, r := range reports {
		if i > 0 {
			streamed.WriteString("\n")
		}
		printCheckHeading(&streamed, r.Server, r.Transport)
		for _, it := range r.Items {
			printCheckRow(&streamed, it, 0)
		}
		printCheckSummary(&streamed, r)
	}
	if streamed.String() != human.String() {
		t.Errorf("streamed rows differ from the table printed whole:\n%s\n---\n%s", streamed.String(), human.String())
	}

	// On a terminal 80 columns wide the streamed rows wrap their reasons
	// in the REASON column.
	var narrow bytes.Buffer
	for _, r := range reports {
		printCheckHeading(&narrow, r.Server, r.Transport)
		for _, it := range r.Items {
			printCheckRow(&narrow, it, 80)
		}
	}
	for _, l := range strings.Split(narrow.String(), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("a row at 80 columns is %d wide: %q", n, l)
		}
	}
	golden.RequireEqual(checkGolden{t, "stream80"}, narrow.Bytes())

	var js bytes.Buffer
	if err := present.WriteJSON(&js, checkJSONOf(reports)); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(checkGolden{t, "json"}, js.Bytes())
}

// noProcessMarked fails if a process carrying the test's mark in its
// environment is still running: check must leave no server behind.
func noProcessMarked(t *testing.T, mark string) {
	t.Helper()
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	needle := []byte("MCPDECK_CHECK_TEST_MARK=" + mark + "\x00")
	for _, p := range envs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, needle) {
			stat, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				continue
			}
			t.Errorf("a checked server is still running: pid %s", filepath.Base(filepath.Dir(p)))
		}
	}
}

// With server-everything's echo switched off, the call step must not pick
// get-annotated-message with messageType "error" (its enum's first value):
// a tool asked for an error-shaped message that answers one is not a
// failure of the server. The reference server passes the call (found by qa).
func TestCheckServerEverythingWithoutEchoPassesTheCall(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	wantCode(t, h.run(t, "", "tools", "disable", "everything", "echo"), ExitOK)
	r := h.run(t, "", "check", "--json", "everything")
	out := parseCheck(t, r)
	st := out.statuses("everything")
	if s := st[check.IDCall]; !strings.HasPrefix(s, "PASS") || strings.Contains(s, `"error"`) || strings.Contains(s, "echo ") {
		t.Errorf("call = %s, want PASS without echo and without asking for an error", s)
	}
}

// A server that prints two banner lines at start is started twice by the
// check (the reconnect item starts it again): stdout-clean counts the two
// lines once and says they came at each start, not "4 lines" (found by qa).
func TestCheckStdoutNoiseCountedPerStart(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	wrapper := filepath.Join(t.TempDir(), "banner-server")
	body := "#!/bin/sh\necho 'banner: starting'\necho 'banner: ready'\nexec " + node + " " + script + "\n"
	if err := os.WriteFile(wrapper, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, t.TempDir(), nil, "", "check", "--json", "--stdio", wrapper)
	st := parseCheck(t, r).statuses(adHocName)
	if s := st[check.IDStdoutClean]; !strings.HasPrefix(s, "FAIL: 2 lines") || !strings.Contains(s, "each of its 2 starts") || !strings.Contains(s, "banner: starting") {
		t.Errorf("stdout-clean = %s, want FAIL naming 2 lines at each of its 2 starts", s)
	}
}
