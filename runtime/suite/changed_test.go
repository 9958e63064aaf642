package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// stepOf finds a step's result by key.
func stepResult(t *testing.T, r *Result, key string) StepResult {
	t.Helper()
	for _, s := range r.Steps {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("%s has no step %s", r.Name(), key)
	return StepResult{}
}

func TestChangedServerFailsWithReadableDiff(t *testing.T) {
	results := runSuite(t, workCopy(t, "peer"), goSDKPeer("changed-stdio"), "legacy")
	r := results[0]
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	echo := stepResult(t, r, "echo")
	if echo.Status != Failed {
		t.Fatalf("echo against a changed server: %s, want failed", echo.Status)
	}
	var equals, snapshot *Failure
	for i, f := range echo.Failures {
		switch f.Expectation {
		case "equals":
			equals = &echo.Failures[i]
		case "snapshot":
			snapshot = &echo.Failures[i]
		}
	}
	if equals == nil || equals.Path != "$.content[0].text" || equals.Expected != `"hello"` || equals.Actual != `"HELLO!"` {
		t.Errorf("equals failure = %+v, want $.content[0].text expected \"hello\", actual \"HELLO!\"", equals)
	}
	if equals != nil && !strings.HasSuffix(equals.Pos, "peer.mcptest.yaml:41:16") {
		t.Errorf("equals failure at %q, want the line of its path in the suite", equals.Pos)
	}
	if snapshot == nil {
		t.Fatalf("no snapshot failure: %+v", echo.Failures)
	}
	for _, want := range []string{"--- snapshot", "+++ live", `-      "text": "hello",`, `+      "text": "HELLO!",`, "mcpdeck test --update"} {
		if !strings.Contains(snapshot.Diff+snapshot.Message, want) {
			t.Errorf("snapshot failure lacks %q:\n%s\n%s", want, snapshot.Message, snapshot.Diff)
		}
	}
	// Only what changed fails: the rest of the suite still passes.
	for _, s := range r.Steps {
		if s.Key != "echo" && s.Key != "reuse" && s.Status != Passed {
			t.Errorf("step %s: %s %+v", s.Key, s.Status, s.Failures)
		}
	}
	if reuse := stepResult(t, r, "reuse"); reuse.Status != Failed {
		t.Errorf("reuse (an echo too) = %s, want failed", reuse.Status)
	}
}

// TestFromRecordingRoundTrip records a session with the runtime's
// recorder, turns it into a suite, and runs the suite against the same
// server (it passes) and a changed one (it fails where the answer changed).
func TestFromRecordingRoundTrip(t *testing.T) {
	dir := t.TempDir()
	recPath := filepath.Join(dir, "session.jsonl")
	p := goSDKPeer("stdio")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, server, closeFn, err := opener(p)(ctx, &Suite{}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Start(rt, record.Options{Path: recPath})
	if err != nil {
		closeFn()
		t.Fatal(err)
	}
	calls := []struct {
		tool, args string
	}{{"echo", `{"text":"recorded"}`}, {"add", `{"a":1,"b":2}`}, {"fail", `{}`}}
	for _, c := range calls {
		if _, err := rt.Call(ctx, runtime.CallRequest{Server: server, Tool: c.tool, Arguments: json.RawMessage(c.args)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rt.ReadResource(ctx, server, "suite://notes/today"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.GetPrompt(ctx, server, "greet", map[string]string{"name": "Grace"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Complete(ctx, runtime.CompleteRequest{Server: server, Ref: runtime.CompletionRef{Prompt: "greet"}, Argument: "name", Value: "G"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Request(ctx, server, "tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}}); err == nil {
		t.Fatal("calling an unknown tool succeeded")
	}
	closeFn()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	recording, err := record.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	name, steps, err := FromRecording(recording, "")
	if err != nil {
		t.Fatal(err)
	}
	if name != server {
		t.Errorf("server %q, want %q", name, server)
	}
	var kinds []string
	for _, s := range steps {
		kinds = append(kinds, string(s.Kind)+":"+s.ID)
	}
	// The recorder started after the connection: the runtime's own
	// listings are not in the recording.
	want := []string{"call:echo", "call:add", "call:fail", "read:read-suite-notes-today", "prompt:prompt-greet", "complete:complete-name", "call:nope"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Errorf("steps:\n got %v\nwant %v", kinds, want)
	}
	suitePath := filepath.Join(dir, "recorded"+Ext)
	text, err := NewSuite(server, "from a test recording", steps)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(suitePath, text, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseFile(suitePath)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if err := SaveSnapshots(s, steps); err != nil {
		t.Fatal(err)
	}
	requirePassed(t, runSuite(t, suitePath, p, "legacy", "modern"))

	changed := runSuite(t, suitePath, goSDKPeer("changed-stdio"), "legacy")[0]
	for _, st := range changed.Steps {
		if (st.Key == "echo") != (st.Status == Failed) {
			t.Errorf("against the changed server, step %s: %s %+v", st.Key, st.Status, st.Failures)
		}
	}
}
