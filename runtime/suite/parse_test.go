package suite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEveryStepKind(t *testing.T) {
	for _, name := range []string{"peer", "everything"} {
		s, err := ParseFile(filepath.Join("testdata", name+Ext))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seen := map[Kind]bool{}
		for _, st := range s.Steps {
			seen[st.Kind] = true
		}
		for _, k := range Kinds {
			if !seen[k] {
				t.Errorf("%s has no %s step: the interop suites must cover every kind", name, k)
			}
		}
	}
	s, err := ParseFile(filepath.Join("testdata", "peer"+Ext))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Protocols, ",") != "legacy,modern" || s.Timeout.String() != "15s" || s.Server.Name != "peer" {
		t.Errorf("suite header = %q %s %q", s.Protocols, s.Timeout, s.Server.Name)
	}
	echo := s.Steps[4]
	if echo.ID != "echo" || echo.Name != "echo says it back" || echo.Kind != KindCall || echo.Target != "echo" ||
		!echo.Expect.Snapshot || echo.Expect.Latency.String() != "5s" || echo.Expect.IsError == nil || *echo.Expect.IsError {
		t.Errorf("echo step = %+v", echo)
	}
	if echo.Pos.Line != 35 || echo.Pos.Column != 5 {
		t.Errorf("echo step at %s, want line 35 col 5", echo.Pos)
	}
	if got := s.SnapshotPath; got != filepath.Join("testdata", SnapshotDir, "peer.snap.json") {
		t.Errorf("snapshot path %s", got)
	}
}

// TestParseErrors: every problem is reported, with the place it is at and
// what to do.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // one per expected error: "line:col: substring"
	}{
		{"not yaml", "server: x\nsteps: [\n", []string{"2:"}},
		{"not a mapping", "- a\n- b\n", []string{"1:1: a suite is a mapping"}},
		{"no server", "steps:\n  - list: tools\n", []string{"names no server"}},
		{"no steps", "server: x\n", []string{"has no steps"}},
		{"unknown field", "server: x\nstep:\n  - list: tools\n", []string{`2:1: step: unknown field "step" in the suite (did you mean "steps"?)`, "has no steps"}},
		{"two kinds", "server: x\nsteps:\n  - list: tools\n    call: echo\n", []string{"3:5: steps[0]: gives list and call"}},
		{"no kind", "server: x\nsteps:\n  - id: a\n", []string{"3:5: steps[0]: says nothing to do"}},
		{"bad listing", "server: x\nsteps:\n  - list: tool\n", []string{`3:5: steps[0].list: "tool": list tools, resources, templates or prompts (did you mean "tools"?)`}},
		{"bad path", "server: x\nsteps:\n  - call: a\n    expect:\n      equals: {\"content[0]\": 1}\n", []string{`5:16: steps[0].expect.equals.content[0]: "content[0]" is not a JSONPath query`}},
		{"bad regexp", "server: x\nsteps:\n  - call: a\n    expect:\n      matches:\n        $.a: \"(\"\n", []string{`6:9: steps[0].expect.matches.$.a: "(" is not a regular expression`}},
		{"bad duration", "server: x\nsteps:\n  - call: a\n    timeout: 5\n", []string{"4:5: steps[0].timeout: must be a duration"}},
		{"later step", "server: x\nsteps:\n  - call: a\n    args: {x: \"${steps.b.result}\"}\n  - id: b\n    call: a\n", []string{"steps[0].args.x: ${steps.b...}: no earlier step has id b"}},
		{"unknown variable", "server: x\nsteps:\n  - call: a\n    args: {x: \"${nope}\"}\n", []string{"unknown variable ${nope}"}},
		{"duplicate id", "server: x\nsteps:\n  - {id: a, call: a}\n  - {id: a, call: b}\n", []string{`4:6: steps[1].id: "a" is also the id of step 1`}},
		{"isError on read", "server: x\nsteps:\n  - read: u\n    expect: {isError: true}\n", []string{"isError is a tool result's"}},
		{"arg on list", "server: x\nsteps:\n  - list: tools\n    args: {a: 1}\n", []string{"steps[0].args: goes with call and prompt steps, not list"}},
		{"inline both", "server: {command: a, url: 'http://x'}\nsteps:\n  - list: tools\n", []string{"give either command: or url:, not both"}},
		{"steps in server", "server: {command: a, args: [\"${steps.a.result}\"]}\nsteps:\n  - list: tools\n", []string{"the server cannot use ${steps...}"}},
		{"bad protocol", "server: x\nprotocol: [legacy, new]\nsteps:\n  - list: tools\n", []string{`2:20: protocol[1]: "new": use auto, legacy, modern or a revision`}},
		{"prompt arg type", "server: x\nsteps:\n  - prompt: p\n    args: {n: 1}\n", []string{"steps[0].args.n: a prompt argument is a string"}},
		{"notification method", "server: x\nsteps:\n  - call: a\n    expect:\n      notifications:\n        - method: progress\n", []string{`"progress" is not a notification method`}},
		// complete's argument and value belong inside it, as FORMAT.md shows.
		{"complete argument outside", "server: x\nsteps:\n  - complete: {prompt: p}\n    argument: a\n    value: E\n",
			[]string{`4:5: steps[0].argument: unknown field "argument"`, `5:5: steps[0].value: unknown field "value"`,
				"steps[0].complete: names no argument: give it inside complete, as in complete: {prompt: P, argument: NAME, value: V}"}},
		{"duplicate key", "server: x\nserver: y\nsteps:\n  - list: tools\n", []string{"2:1: invalid YAML"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.mcptest.yaml", []byte(tt.yaml))
			var errs Errors
			if !errors.As(err, &errs) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want Errors", err)
			}
			if len(errs) != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", len(errs), len(tt.want), err)
			}
			for i, w := range tt.want {
				if i < len(errs) && !strings.Contains(errs[i].Error(), "s.mcptest.yaml:"+w) && !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i].Error(), w)
				}
				if i < len(errs) && strings.Contains(w, ":") && w[0] >= '0' && w[0] <= '9' && !strings.Contains(errs[i].Error(), "s.mcptest.yaml:"+w) {
					t.Errorf("error %d = %q, want it at s.mcptest.yaml:%s", i, errs[i].Error(), w)
				}
			}
		})
	}
}

func TestParseFileUnreadable(t *testing.T) {
	_, err := ParseFile(filepath.Join(t.TempDir(), "missing"+Ext))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cannot read the suite") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat("testdata"); err != nil {
		t.Fatal(err)
	}
}
