package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// writeSuite writes a suite file under the headless test's mcp-tests/.
func writeSuite(t *testing.T, h *headless, name, text string) string {
	t.Helper()
	path := filepath.Join(h.dir, "mcp-tests", name+".mcptest.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const demoSuite = `name: demo
server: demo
steps:
  - id: echo
    call: echo
    args: {text: hello}
    expect:
      equals: {"$.content[0].text": hello}
      snapshot: true
  - id: add
    call: add
    args: {a: 2, b: 3}
    expect:
      outputSchema: true
      equals: {"$.structuredContent.sum": 5}
  - call: fail
    expect: {isError: true}
  - read: demo://status
  - prompt: greet
    args: {name: Ada}
    expect:
      matches: {"$.messages[0].content.text": Ada}
`

func TestTestCommandSnapshotsJUnitAndJSON(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	writeSuite(t, h, "demo", demoSuite)
	ci := append(append([]string(nil), h.env...), "CI=true")
	dev := append(append([]string(nil), h.env...), "CI=")

	// Under CI a missing snapshot fails the step: nobody reviewed it.
	r := runBin(t, h.dir, ci, "", "--config", h.cfg, "test")
	wantCode(t, r, ExitToolError)
	if !strings.Contains(r.stdout, `✗ echo: call echo`) || !strings.Contains(r.stdout, `no snapshot "echo"`) || !strings.Contains(r.stdout, "--update") {
		t.Errorf("missing snapshot under CI:\n%s", r.stdout)
	}
	snap := filepath.Join(h.dir, "mcp-tests", "__snapshots__", "demo.snap.json")
	if _, err := os.Stat(snap); err == nil {
		t.Error("a snapshot was written under CI")
	}

	// On a workstation it is written, and said so.
	r = runBin(t, h.dir, dev, "", "--config", h.cfg, "test")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, `snapshot "echo" written`) {
		t.Errorf("first run:\n%s", r.stdout)
	}
	data, err := os.ReadFile(snap)
	if err != nil || !strings.Contains(string(data), `"text": "hello"`) {
		t.Fatalf("snapshot file: %v\n%s", err, data)
	}

	// Now CI passes, writes JUnit, and --json reports the same.
	junit := filepath.Join(h.dir, "report.xml")
	r = runBin(t, h.dir, ci, "", "--config", h.cfg, "test", "--junit", junit)
	wantCode(t, r, ExitOK)
	for _, want := range []string{"demo  (mcp-tests/demo.mcptest.yaml; server demo, legacy 2025-11-25)", "  ✓ echo: call echo (", "  ✓ step-3: call fail (",
		"  ok: 5 passed, 0 failed, 0 errors, 0 skipped", "PASS: 1 suite run (0 failed); 5 steps: 5 passed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
		Suites  []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil || doc.Tests != 5 || len(doc.Suites) != 1 || doc.Suites[0].Cases[0].Name != "echo: call echo" {
		t.Errorf("junit: %v %+v\n%s", err, doc, raw)
	}

	r = runBin(t, h.dir, ci, "", "--config", h.cfg, "test", "--json")
	wantCode(t, r, ExitOK)
	var out struct {
		Runs []struct {
			Suite, Era string
			Steps      []struct{ Key, Status string }
		}
		Summary struct {
			Steps, Passed int
			OK            bool `json:"ok"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if len(out.Runs) != 1 || out.Runs[0].Era != "legacy" || out.Summary.Steps != 5 || out.Summary.Passed != 5 || !out.Summary.OK {
		t.Errorf("--json: %+v", out)
	}

	// A changed expectation fails with what was expected and what came.
	writeSuite(t, h, "demo", strings.Replace(demoSuite, `{"$.content[0].text": hello}`, `{"$.content[0].text": bye}`, 1))
	r = runBin(t, h.dir, ci, "", "--config", h.cfg, "test")
	wantCode(t, r, ExitToolError)
	for _, want := range []string{"✗ echo: call echo", "equals $.content[0].text (mcp-tests/demo.mcptest.yaml:8:16): differs", `expected: "bye"`, `actual:   "hello"`, "FAIL: 1 suite run (1 failed)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("failed run lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestTestCommandExitCodes(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})

	// No suite at all: a usage error saying where it looked.
	r := h.run(t, "", "test")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "no test suites") {
		t.Errorf("no suites: %s", r.stderr)
	}

	// A suite with problems: every one, with its place, and nothing runs.
	writeSuite(t, h, "bad", "server: demo\nsteps:\n  - call: echo\n    expect: {isErr: true}\n  - list: tool\n")
	r = h.run(t, "", "test")
	wantCode(t, r, ExitUsage)
	for _, want := range []string{"2 problems in the test suites; nothing was run", `mcp-tests/bad.mcptest.yaml:4:14: steps[0].expect.isErr: unknown field "isErr" in expect (did you mean "isError"?)`,
		`mcp-tests/bad.mcptest.yaml:5:5: steps[1].list: "tool"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("bad suite: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("a bad suite ran something:\n%s", r.stdout)
	}

	// A server that cannot start: 3, and the steps are skipped.
	path := writeSuite(t, h, "bad", "server:\n  command: "+filepath.Join(h.dir, "no-such-server")+"\nsteps:\n  - list: tools\n")
	r = h.run(t, "", "test", path)
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stdout, "! ") || !strings.Contains(r.stdout, "no-such-server") || !strings.Contains(r.stdout, "1 skipped") {
		t.Errorf("unstartable server:\n%s", r.stdout)
	}

	// A server the configuration does not have: a usage error.
	path = writeSuite(t, h, "bad", "server: nosuch\nsteps:\n  - list: tools\n")
	r = h.run(t, "", "test", path)
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stdout, `no server "nosuch"`) {
		t.Errorf("unknown server:\n%s", r.stdout)
	}

	// A protocol the server does not speak: a connection failure.
	path = writeSuite(t, h, "bad", "server: demo\nprotocol: modern\nsteps:\n  - list: tools\n")
	r = h.run(t, "", "test", path)
	wantCode(t, r, ExitConnection)
	// The demo server (on the go-sdk) answers server/discover with the
	// revisions it speaks, all of them legacy.
	if !strings.Contains(r.stdout, "bad [modern]") || !strings.Contains(r.stdout, "speaks only the legacy revisions (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05) and mcpdeck, under this protocol setting, 2026-07-28") {
		t.Errorf("modern against a legacy server:\n%s", r.stdout)
	}
}

// TestTestCommandInputs: a configured server that uses a VS Code input
// starts when the suite gives the input a value, and not otherwise.
func TestTestCommandInputs(t *testing.T) {
	srv := srvFake(jsonrpctest.Normal)
	srv["args"] = append(srv["args"].([]string), "--token=${input:tok}")
	h := newHeadless(t, map[string]map[string]any{"fake": srv})
	without := writeSuite(t, h, "without", "server: fake\nsteps:\n  - list: tools\n")
	r := h.run(t, "", "test", without)
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stdout, "${input:tok}") {
		t.Errorf("without the input:\n%s", r.stdout)
	}
	with := writeSuite(t, h, "with", "server: fake\ninputs: {tok: \"${env:FAKE_TOKEN}\"}\nsteps:\n  - id: tools\n    list: tools\n    expect:\n      exists: [\"$.tools[?@.name=='echo']\"]\n")
	r = runBin(t, h.dir, append(h.env, "FAKE_TOKEN=t0ken-from-ci"), "", "--config", h.cfg, "test", with)
	wantCode(t, r, ExitOK)
}

// TestTestFromRecording: a session recorded with --record becomes a suite
// that passes against the same server; its listing joins both pages.
func TestTestFromRecording(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"fake": srvFake(jsonrpctest.Normal)})
	rec := filepath.Join(h.dir, "session.jsonl")
	wantCode(t, h.run(t, "", "call", "fake", "echo", `{"text":"recorded"}`, "--record", rec), ExitOK)

	r := h.run(t, "", "test", "--from-recording", rec)
	wantCode(t, r, ExitOK)
	suitePath := filepath.Join(h.dir, "mcp-tests", "fake.mcptest.yaml")
	if !strings.Contains(r.stdout, "wrote mcp-tests/fake.mcptest.yaml") {
		t.Errorf("from-recording said:\n%s", r.stdout)
	}
	text, err := os.ReadFile(suitePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server: fake", "- id: list-tools", "list: tools", "- id: echo", "call: echo", "text: recorded", "snapshot: true"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the suite lacks %q:\n%s", want, text)
		}
	}
	snaps, _ := os.ReadFile(filepath.Join(h.dir, "mcp-tests", "__snapshots__", "fake.snap.json"))
	if !strings.Contains(string(snaps), `"name": "big"`) || !strings.Contains(string(snaps), `"name": "echo"`) {
		t.Errorf("the tools snapshot does not hold both pages:\n%s", snaps)
	}
	// Writing it again would replace the suite: refused without --force.
	r = h.run(t, "", "test", "--from-recording", rec)
	wantCode(t, r, ExitUsage)

	r = runBin(t, h.dir, append(h.env, "CI=true"), "", "--config", h.cfg, "test")
	wantCode(t, r, ExitOK)
}

// TestTestParallelKeepsBlocksWhole: runs at once still print each suite's
// block in one piece.
func TestTestParallelKeepsBlocksWhole(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	for _, name := range []string{"a", "b", "c"} {
		writeSuite(t, h, name, "name: "+name+"\nserver: demo\nsteps:\n  - call: echo\n    args: {text: "+name+"}\n  - call: sleep\n    args: {seconds: 0.2}\n  - list: tools\n")
	}
	r := h.run(t, "", "test", "--parallel", "3")
	wantCode(t, r, ExitOK)
	blocks := strings.Split(strings.TrimSpace(r.stdout), "\n\n")
	if len(blocks) != 4 {
		t.Fatalf("%d blocks, want 3 suites and the summary:\n%s", len(blocks), r.stdout)
	}
	for _, b := range blocks[:3] {
		lines := strings.Split(b, "\n")
		name := strings.Fields(lines[0])[0]
		if len(lines) != 5 || !strings.HasPrefix(lines[4], "  ok: 3 passed") {
			t.Errorf("block of %s is not whole:\n%s", name, b)
		}
		for _, l := range lines[1:4] {
			if !strings.HasPrefix(l, "  ✓ ") {
				t.Errorf("block of %s holds a foreign line %q", name, l)
			}
		}
	}
}

// TestTestHostileServer: what a hostile server says reaches the report as
// visible escapes, never as terminal control, and the JUnit file stays XML.
func TestTestHostileServer(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"evil": srvFake(jsonrpctest.HostileEscapes)})
	writeSuite(t, h, "evil", `server: evil
steps:
  - call: shout
    expect:
      equals: {"$.content[0].text": calm}
  - call: rpc_fail
`)
	junit := filepath.Join(h.dir, "report.xml")
	r := h.run(t, "", "test", "--junit", junit)
	wantCode(t, r, ExitToolError)
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\r"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("the report holds %q raw:\n%q", bad, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, `\u001b]0;pwned`) || !strings.Contains(r.stdout, "internal failure") {
		t.Errorf("the report does not show what the server said:\n%s", r.stdout)
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil || doc.Failures != 2 {
		t.Errorf("junit with hostile text: %v, %d failures\n%s", err, doc.Failures, raw)
	}
}

// TestTestFromRecordingOfTheReferenceServer: server-everything lists its
// elicitation tool only to a client that declares elicitation, as call
// (and every headless command but check) does. The suite written from a
// call's recording expects that listing, so the runner must declare what
// call declares, or the suite fails against the very server it recorded.
func TestTestFromRecordingOfTheReferenceServer(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	rec := filepath.Join(h.dir, "session.jsonl")
	wantCode(t, h.run(t, "", "call", "everything", "get-sum", `{"a":1,"b":2}`, "--record", rec), ExitOK)
	wantCode(t, h.run(t, "", "test", "--from-recording", rec), ExitOK)
	r := h.run(t, "", "test")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "✓ list-tools") || !strings.Contains(r.stdout, "✓ get-sum") {
		t.Errorf("the suite from the recording:\n%s", r.stdout)
	}
}

// TestTestFromRecordingOfAnAdHocServer: a session recorded with --stdio (or
// a gateway's --stdio) names its server "adhoc", which no configuration
// has; the suite written from it starts the recorded command inline, so it
// runs as written instead of failing on an unknown server.
func TestTestFromRecordingOfAnAdHocServer(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	h := newHeadless(t, map[string]map[string]any{})
	rec := filepath.Join(h.dir, "session.jsonl")
	wantCode(t, runBin(t, h.dir, h.env, "", "call", "--stdio", node+" "+script+" stdio", "get-sum", `{"a":1,"b":2}`, "--record", rec), ExitOK)
	r := runBin(t, h.dir, h.env, "", "test", "--from-recording", rec)
	wantCode(t, r, ExitOK)
	text, err := os.ReadFile(filepath.Join(h.dir, "mcp-tests", "adhoc.mcptest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "command: "+node) || !strings.Contains(string(text), "- "+script) {
		t.Errorf("the suite does not start the recorded command:\n%s", text)
	}
	r = runBin(t, h.dir, append(h.env, "CI=true"), "", "test")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "✓ get-sum") {
		t.Errorf("the suite from the ad-hoc recording:\n%s", r.stdout)
	}
}
