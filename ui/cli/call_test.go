package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

func TestCallDemo(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})

	r := h.run(t, "", "call", "demo", "echo", `{"text":"hello, deck"}`)
	wantCode(t, r, ExitOK)
	if r.stdout != "hello, deck\n" {
		t.Errorf("echo printed %q", r.stdout)
	}

	// Arguments from stdin and from a file.
	r = h.run(t, `{"a": 1, "b": 2}`, "call", "demo", "add", "-")
	wantCode(t, r, ExitOK)
	if r.stdout != "3\n" {
		t.Errorf("add from stdin printed %q", r.stdout)
	}
	file := filepath.Join(h.dir, "args.json")
	if err := os.WriteFile(file, []byte(`{"a": 40, "b": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = h.run(t, "", "call", "demo", "add", "@"+file, "--json")
	wantCode(t, r, ExitOK)
	var res runtime.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("call --json printed invalid JSON: %v\n%s", err, r.stdout)
	}
	var structured bytes.Buffer
	_ = json.Compact(&structured, res.StructuredContent)
	if len(res.Content) != 1 || res.Content[0].Text != "42" || structured.String() != `{"sum":42}` || res.RequestID == 0 {
		t.Errorf("call --json result: %+v", res)
	}

	// isError: the text is printed, the exit status is 1.
	r = h.run(t, "", "call", "demo", "fail")
	wantCode(t, r, ExitToolError)
	if !strings.Contains(r.stdout, "the fail tool always fails") || !strings.Contains(r.stderr, "isError") {
		t.Errorf("fail: stdout %q stderr %q", r.stdout, r.stderr)
	}

	// Progress goes to stderr as lines when stderr is not a terminal.
	r = h.run(t, "", "call", "demo", "sleep", `{"seconds": 0.35}`)
	wantCode(t, r, ExitOK)
	if r.stdout != "slept 0.35 s\n" || !strings.Contains(r.stderr, "progress: ") || !strings.Contains(r.stderr, "/0.35 (") {
		t.Errorf("sleep: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

func TestCallArgumentErrors(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		want        []string
	}{
		{"bad inline JSON", "", []string{"demo", "echo", `{"text":`}, ExitUsage, []string{"the ARGS_JSON argument", "not valid JSON"}},
		{"bad stdin JSON", "{\n  \"text\": hi\n}", []string{"demo", "echo", "-"}, ExitUsage, []string{"stdin", "line 2"}},
		{"not an object", "", []string{"demo", "echo", `["x"]`}, ExitUsage, []string{"array, not an object"}},
		{"missing file", "", []string{"demo", "echo", "@" + filepath.Join(h.dir, "nope.json")}, ExitUsage, []string{"nope.json"}},
		{"schema violation", "", []string{"demo", "add", `{"a":"one"}`}, ExitUsage, []string{"a", "b", "--no-validate"}},
		{"unknown tool", "", []string{"demo", "nosuch"}, ExitUsage, []string{`unknown tool "nosuch"`, "mcpdeck tools demo"}},
		{"unknown server", "", []string{"nosuch", "echo"}, ExitUsage, []string{`no server "nosuch"`}},
		{"no tool", "", []string{"demo"}, ExitUsage, []string{"give SERVER and TOOL"}},
		{"bad elicitation", "", []string{"demo", "echo", "--elicitation", "maybe"}, ExitUsage, []string{"decline or defaults"}},
		// Sent anyway, the server answers with a tool error: exit 1.
		{"no-validate", "", []string{"demo", "add", `{"a":"one"}`, "--no-validate"}, ExitToolError, []string{"isError"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(t, tc.stdin, append([]string{"call"}, tc.args...)...)
			wantCode(t, r, tc.code)
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestCallMisbehavingServers(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"hang":  srvFake(jsonrpctest.Hang),
		"crash": srvFake(jsonrpctest.CrashOnCall),
		"broke": srvFake(jsonrpctest.ExitEarly),
		"wrong": srvFake(jsonrpctest.WrongID),
	})
	r := h.run(t, "", "call", "hang", "echo", `{"text":"x"}`, "--timeout", "300ms")
	wantCode(t, r, ExitTimeout)
	if !strings.Contains(r.stderr, "timeout") && !strings.Contains(r.stderr, "timed out") {
		t.Errorf("hang: stderr does not say it timed out:\n%s", r.stderr)
	}
	r = h.run(t, "", "call", "wrong", "echo", `{"text":"x"}`, "--timeout", "300ms")
	wantCode(t, r, ExitTimeout)

	r = h.run(t, "", "call", "crash", "echo", `{"text":"x"}`)
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, "crash") {
		t.Errorf("crash: stderr does not name the server:\n%s", r.stderr)
	}
	r = h.run(t, "", "call", "broke", "echo", `{"text":"x"}`)
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, `server "broke"`) {
		t.Errorf("exit-early: stderr does not name the server:\n%s", r.stderr)
	}
}

func TestCallInterruptCancels(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	p := h.start(t, "call", "demo", "sleep", `{"seconds": 60}`)
	// A progress line proves the call is outstanding on the server.
	p.waitLine(t, true, "the first progress line", func(l string) bool { return strings.HasPrefix(l, "progress: ") })
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != ExitTimeout {
		t.Fatalf("exit status %d after SIGINT, want %d; stderr:\n%s", code, ExitTimeout, strings.Join(p.seenErr, "\n"))
	}
	if len(p.seenOut) != 0 {
		t.Errorf("a cancelled call printed a result: %q", p.seenOut)
	}
	if !strings.Contains(strings.Join(p.seenErr, "\n"), "cancelled") {
		t.Errorf("stderr does not say the call was cancelled:\n%s", strings.Join(p.seenErr, "\n"))
	}
}

func TestCallEverything(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	// server-everything ignores stdin EOF, so each stop waits out a grace
	// period; the calls are independent runs and go in parallel.
	for _, tc := range []struct {
		name          string
		args          []string
		want, wantErr string
	}{
		{"echo", []string{"echo", `{"message":"hi"}`}, "Echo: hi\n", ""},
		{"image", []string{"get-tiny-image"}, "[image image/png, ", ""},
		// Elicitation: declined by default, and stderr says so and what
		// would answer it (the server only learns "decline"). With
		// defaults, its form requires a name nothing can pick: it is
		// declined, saying why (it used to be accepted without the name).
		{"decline", []string{"trigger-elicitation-request"}, `"action": "decline"`,
			`declined everything's elicitation "Please provide inputs for the following fields:": headless commands decline; --elicitation defaults answers`},
		{"defaults", []string{"trigger-elicitation-request", "--elicitation", "defaults"}, `"action": "decline"`,
			`declined everything's elicitation "Please provide inputs for the following fields:": the required field "name" (String) has no default`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := h.run(t, "", append([]string{"call", "everything"}, tc.args...)...)
			wantCode(t, r, ExitOK)
			if !strings.Contains(r.stdout, tc.want) {
				t.Errorf("stdout does not contain %q:\n%s", tc.want, r.stdout)
			}
			if !strings.Contains(r.stderr, tc.wantErr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.wantErr, r.stderr)
			}
		})
	}
}

func TestCallAdHocStdio(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, nil)
	env := append(h.env, demoLogIntervalEnv+"=0", headlessMarkEnv+"="+h.mark)
	r := runBin(t, h.dir, env, "", "call", "--stdio", mcpdeckBin(t)+" demo-server", "echo", `{"text":"ad hoc"}`)
	wantCode(t, r, ExitOK)
	if r.stdout != "ad hoc\n" {
		t.Errorf("echo printed %q", r.stdout)
	}
	r = runBin(t, h.dir, env, "", "call", "--stdio", mcpdeckBin(t)+" demo-server", "demo", "echo", `{}`)
	wantCode(t, r, ExitUsage)
}

func TestWriteResultGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeResult(&b, &runtime.Result{Content: []runtime.Content{
		{Type: "text", Text: "first block"},
		{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"},
		{Type: "audio", Data: "AAAA", MIMEType: "audio/wav"},
		{Type: "resource_link", URI: "file:///tmp/a.txt", Name: "a.txt", MIMEType: "text/plain"},
		{Type: "resource", Resource: &runtime.EmbeddedContent{URI: "demo://status", MIMEType: "application/json", Text: `{"ok":true}`}},
		{Type: "text", Text: "cut here\n…[truncated by mcpdeck: the result had 5000 bytes of text and binary data; the limit is 1000]"},
	}, StructuredContent: json.RawMessage(`{"hidden":"because there is text"}`)})
	b.WriteString("--- structured only ---\n")
	writeResult(&b, &runtime.Result{StructuredContent: json.RawMessage(`{"sum":3,"parts":[1,2]}`)})
	golden.RequireEqual(headlessGolden{t, "call/render"}, b.Bytes())
}

func TestReadArgumentsPlacesErrors(t *testing.T) {
	t.Parallel()
	_, err := readArguments("-", strings.NewReader("{\n  \"a\": 1,\n  oops\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") || codeOf(err) != ExitUsage {
		t.Fatalf("err = %v, want a usage error at line 3", err)
	}
	raw, err := readArguments(`  {"a":1}  `, nil)
	if err != nil || string(raw) != `{"a":1}` {
		t.Fatalf("readArguments = %s, %v", raw, err)
	}
	if raw, err := readArguments("", nil); raw != nil || err != nil {
		t.Fatalf("no arguments = %s, %v; want nil, nil", raw, err)
	}
}

func TestProgressPrinterBarAndLines(t *testing.T) {
	t.Parallel()
	ev := runtime.Progress{Progress: 1, Total: 4, Message: "a quarter"}
	var lines bytes.Buffer
	p := &progressPrinter{w: &lines}
	p.print(ev)
	p.print(runtime.Progress{Progress: 7})
	p.finish()
	if got := lines.String(); got != "progress: 1/4 (25%) a quarter\nprogress: 7\n" {
		t.Errorf("progress lines = %q", got)
	}
	var bar bytes.Buffer
	p = &progressPrinter{w: &bar, tty: true}
	p.print(ev)
	p.finish()
	want := "\r\x1b[K[########......................] 1/4 (25%) a quarter\r\x1b[K"
	if got := bar.String(); got != want {
		t.Errorf("progress bar = %q, want %q", got, want)
	}
	if isTerminal(&bar) {
		t.Error("a buffer counted as a terminal")
	}
}

// Every progress notification a server writes before its answer is
// printed, the last one too, with the shapes real servers send it in: the
// burst fake writes five and its answer in one write, server-everything's
// long-running operation its last progress just before its answer.
func TestCallPrintsTheLastProgress(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	h := newHeadless(t, map[string]map[string]any{
		"burst": srvFake(jsonrpctest.ProgressBurst),
		"every": {"command": node, "args": []string{script, "stdio"}},
	})
	for _, tc := range []struct {
		server, tool, args, last string
	}{
		{"burst", "burst", `{"steps": 5}`, "progress: 5/5 (100%) step 5 of 5\n"},
		{"every", "trigger-long-running-operation", `{"duration": 0.3, "steps": 3}`, "progress: 3/3 (100%)\n"},
	} {
		for range 3 {
			r := h.run(t, "", "call", tc.server, tc.tool, tc.args)
			wantCode(t, r, ExitOK)
			if !strings.HasSuffix(r.stderr, tc.last) {
				t.Fatalf("%s: stderr does not end with %q:\n%s", tc.tool, tc.last, r.stderr)
			}
		}
	}
}

// A declined elicitation of an ad-hoc server advises the TUI only by way
// of adding the server, naming its URL or command: the TUI has no --url,
// and "answer it in the TUI (mcpdeck)" led nowhere (found by qa). A
// configured server is still told to use the TUI (TestCallEverything).
func TestCallAdHocElicitationAdvice(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"
	h := newHeadless(t, nil)
	for _, args := range [][]string{{"--elicitation", "defaults"}, nil} {
		r := runBin(t, h.dir, h.env, "", append([]string{"call", "--url", url, "trigger-elicitation-request"}, args...)...)
		wantCode(t, r, ExitOK)
		if strings.Contains(r.stderr, "in the TUI (mcpdeck)") || !strings.Contains(r.stderr, "mcpdeck add NAME --url "+url) {
			t.Errorf("call %v: stderr advises:\n%s", args, r.stderr)
		}
	}
	// The same for a declined sampling request.
	r := runBin(t, h.dir, h.env, "", "call", "--url", url, "trigger-sampling-request", `{"prompt":"Capital of France?"}`, "--sampling", "decline")
	if strings.Contains(r.stderr, "in the TUI (mcpdeck)") || !strings.Contains(r.stderr, "sampling request") || !strings.Contains(r.stderr, "mcpdeck add NAME --url "+url) {
		t.Errorf("call with --sampling decline: exit %d, stderr advises:\n%s", r.code, r.stderr)
	}
}
