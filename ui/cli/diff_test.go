package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/record"
)

// recordPeer records a session of the Go SDK peer (configured as "peer"
// in cfg) that lists its tools and calls echo, and returns the file.
func recordPeer(t *testing.T, cfg string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "peer.jsonl")
	r := runBin(t, "", nil, "", "--config", cfg, "call", "peer", "echo", `{"text":"recorded"}`, "--record", path)
	wantCode(t, r, ExitOK)
	return path
}

// editRecording writes a copy of a recording whose recorded tools/list
// answers were changed by edit (given the list of tools), and returns it.
func editRecording(t *testing.T, path string, edit func(tools []map[string]any) []map[string]any) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	edited := 0
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		ev, _ := line["ev"].(map[string]any)
		frame, _ := ev["Frame"].(map[string]any)
		raw, _ := frame["Raw"].(map[string]any)
		result, _ := raw["result"].(map[string]any)
		if frame["Method"] == "tools/list" && frame["Dir"] == "in" && result != nil {
			var tools []map[string]any
			b, _ := json.Marshal(result["tools"])
			_ = json.Unmarshal(b, &tools)
			result["tools"] = edit(tools)
			edited++
		}
		b, _ := json.Marshal(line)
		out.Write(append(b, '\n'))
	}
	if edited == 0 {
		t.Fatal("the recording has no tools/list answer to edit")
	}
	file := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(file, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func reversed(tools []map[string]any) []map[string]any {
	slices.Reverse(tools)
	return tools
}

// echoRetyped changes echo's input schema: text becomes an integer, and a
// required property times is added.
func echoRetyped(tools []map[string]any) []map[string]any {
	for _, tl := range tools {
		if tl["name"] != "echo" {
			continue
		}
		s := tl["inputSchema"].(map[string]any)
		props := s["properties"].(map[string]any)
		props["text"].(map[string]any)["type"] = "integer"
		props["times"] = map[string]any{"type": "integer", "description": "How many times."}
		s["required"] = append(s["required"].([]any), "times")
	}
	return tools
}

// diff compares by name: the Go SDK peer against a recording of itself
// whose tools/list came in the opposite order is no difference (exit 0);
// a recording whose echo schema changed reports exactly that change, in
// schema terms (exit 1); the same TypeScript SDK v2 server over stdio and
// over Streamable HTTP is no difference.
func TestDiffByName(t *testing.T) {
	cfg := fakeConfig(t, "diff-"+strconv.FormatInt(time.Now().UnixNano(), 36), map[string]jsonrpctest.Mode{"peer": jsonrpctest.GoSDKModern})
	path := recordPeer(t, cfg)

	r := runBin(t, "", nil, "", "--config", cfg, "diff", editRecording(t, path, reversed), "peer")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "tools: no difference (") {
		t.Fatalf("a reordered listing:\n%s", r.stdout)
	}

	r = runBin(t, "", nil, "", "diff", path, editRecording(t, path, echoRetyped), "--json")
	wantCode(t, r, ExitToolError)
	var got struct {
		Changes   []record.ItemChange `json:"changes"`
		Different bool                `json:"different"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if !got.Different || len(got.Changes) != 1 {
		t.Fatalf("changes: %+v", got.Changes)
	}
	c := got.Changes[0]
	if c.Kind != "tool" || c.Name != "echo" || c.Change != "changed" || len(c.Fields) != 1 || c.Fields[0].Field != "inputSchema" {
		t.Fatalf("change: %+v", c)
	}
	wantSchema := []string{"~ text: type string → integer", `+ property times (integer, required): "How many times."`}
	if !slices.Equal(c.Fields[0].Schema, wantSchema) {
		t.Errorf("schema account %q, want %q", c.Fields[0].Schema, wantSchema)
	}

	r = runBin(t, "", nil, "", "diff", path, editRecording(t, path, echoRetyped))
	wantCode(t, r, ExitToolError)
	for _, want := range []string{"tools: 0 added, 0 removed, 1 changed,", "  ~ tool echo\n      inputSchema:\n        ~ text: type string → integer\n",
		"prompts: no difference"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, r.stdout)
		}
	}

	node, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	url := jsonrpctest.TSServerHTTP(t, jsonrpctest.DualEra)
	r = runBin(t, "", env, "", "diff", "--stdio", node+" "+strings.Join(args, " "), url)
	wantCode(t, r, ExitOK)
	for _, want := range []string{"tools: no difference", "prompts: no difference", "resources: no difference"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the same server over stdio and HTTP:\n%s", r.stdout)
		}
	}
}

// replay --against compares a recorded tools/list by name: the Go SDK peer
// answers in its own order a listing recorded in the opposite one, and
// that passes; a changed schema fails, at the tool's name.
func TestReplayAgainstListByName(t *testing.T) {
	cfg := fakeConfig(t, "against-"+strconv.FormatInt(time.Now().UnixNano(), 36), map[string]jsonrpctest.Mode{"peer": jsonrpctest.GoSDKModern})
	path := recordPeer(t, cfg)
	r := runBin(t, "", nil, "", "--config", cfg, "replay", editRecording(t, path, reversed), "--against", "peer")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "PASS") || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("a reordered tools/list:\n%s", r.stdout)
	}
	r = runBin(t, "", nil, "", "--config", cfg, "replay", editRecording(t, path, echoRetyped), "--against", "peer")
	wantCode(t, r, ExitToolError)
	for _, want := range []string{"/result/tools/echo/inputSchema/properties/text/type: recorded \"integer\", live \"string\"",
		"/result/tools/echo/inputSchema/properties/times: recorded"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// diff --suite runs a suite on both sides and compares each step's
// outcome: the Go SDK peer and its own recording (served as a mock) pass
// alike; against a recording whose echo now takes an integer, the call
// step fails on that side only: a difference, named by the step.
func TestDiffSuites(t *testing.T) {
	cfg := fakeConfig(t, "diffsuite-"+strconv.FormatInt(time.Now().UnixNano(), 36), map[string]jsonrpctest.Mode{"peer": jsonrpctest.GoSDKModern})
	path := recordPeer(t, cfg)
	suiteFile := filepath.Join(t.TempDir(), "echo.mcptest.yaml")
	yaml := "server: peer\nsteps:\n  - id: echo\n    call: echo\n    args: {text: recorded}\n    expect:\n      equals: {\"$.content[0].text\": recorded}\n"
	if err := os.WriteFile(suiteFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, "", nil, "", "--config", cfg, "diff", path, "peer", "--suite", suiteFile)
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "A 1 passed, 0 failed, 0 errors, 0 skipped; B 1 passed") || !strings.Contains(r.stdout, "the same outcome on both") {
		t.Fatalf("alike:\n%s\n%s", r.stdout, r.stderr)
	}
	r = runBin(t, "", nil, "", "--config", cfg, "diff", "peer", editRecording(t, path, echoRetyped), "--suite", suiteFile)
	wantCode(t, r, ExitToolError)
	if !strings.Contains(r.stdout, "~ step echo (") || !strings.Contains(r.stdout, "A passed, B failed") {
		t.Fatalf("a step that fails on B only:\n%s\n%s", r.stdout, r.stderr)
	}
	// Why it failed there is said under it (it was not: one had to run the
	// suite on B alone to learn it).
	if !strings.Contains(r.stdout, "\n      B: ") || strings.Contains(r.stdout, "\n      A: ") {
		t.Errorf("the reason B failed:\n%s", r.stdout)
	}
}

// diff names its sides in any order: B before A in the alphabet is no
// reason to lose one (the configuration's servers were looked up as if the
// two named ones were still in name order).
func TestDiffConfiguredSidesInAnyOrder(t *testing.T) {
	cfg := fakeConfig(t, "diff-order-"+strconv.FormatInt(time.Now().UnixNano(), 36),
		map[string]jsonrpctest.Mode{"zeta": jsonrpctest.GoSDKModern, "alpha": jsonrpctest.GoSDKModern})
	for _, args := range [][]string{{"alpha", "zeta"}, {"zeta", "alpha"}} {
		r := runBin(t, "", nil, "", append([]string{"--config", cfg, "diff"}, args...)...)
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "A: "+args[0]+" (") || !strings.Contains(r.stdout, "B: "+args[1]+" (") || !strings.Contains(r.stdout, "tools: no difference (") {
			t.Errorf("diff %v:\n%s%s", args, r.stdout, r.stderr)
		}
	}
}
