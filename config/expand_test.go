package config

import (
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	e := &expander{
		vars: map[string]string{"workspaceFolder": "/proj", "userHome": "/home/ada", "mcpdeck": "/bin/mcpdeck", "input:given": "g1v3n"},
		lookupEnv: fakeEnv(map[string]string{
			"HOME": "/home/env", "TOKEN": "t0k", "EMPTY": "", "mcpdeck": "env loses",
		}),
		home: "/home/ada",
	}
	tests := []struct {
		in       string
		tilde    bool
		want     string
		problems []string // substrings, one per expected problem
		inputs   []string
	}{
		{in: "plain $HOME text", want: "plain $HOME text"},
		{in: "${TOKEN}", want: "t0k"},
		{in: "a${TOKEN}b${TOKEN}c", want: "at0kbt0kc"},
		{in: "${env:TOKEN}", want: "t0k"},
		{in: "${workspaceFolder}/x", want: "/proj/x"},
		{in: "${userHome}", want: "/home/ada"},
		{in: "${mcpdeck}", want: "/bin/mcpdeck"},
		{in: "${MISSING:-fallback}", want: "fallback"},
		{in: "${EMPTY:-fallback}", want: "fallback"},
		{in: "${EMPTY}", want: ""},
		{in: "${TOKEN:-unused}", want: "t0k"},
		{in: "${MISSING:-${TOKEN}}", want: "t0k"},
		{in: "${MISSING:-${ALSO_MISSING:-deep}}", want: "deep"},
		{in: "${TOKEN:-${UNSET_BUT_UNUSED}}", want: "t0k"},
		{in: "${MISSING:-}", want: ""},
		{in: "${MISSING:-a}}", want: "a}"},
		{in: "~/bin/x", tilde: true, want: "/home/ada/bin/x"},
		{in: "~", tilde: true, want: "/home/ada"},
		{in: "~/bin", tilde: false, want: "~/bin"},
		{in: "~other/bin", tilde: true, want: "~other/bin"},
		{in: "x~/bin", tilde: true, want: "x~/bin"},
		{in: "${MISSING}", want: "${MISSING}", problems: []string{`variable "MISSING" is not set`}},
		{in: "${env:MISSING}", want: "${env:MISSING}", problems: []string{`variable "env:MISSING" is not set`}},
		{in: "${A}${B}", want: "${A}${B}", problems: []string{`"A"`, `"B"`}},
		{in: "${MISSING:-${ALSO}}", want: "${ALSO}", problems: []string{`variable "ALSO" is not set`}},
		{in: "${", want: "${", problems: []string{"unterminated"}},
		{in: "${A:-${B}", want: "${A:-${B}", problems: []string{"unterminated"}},
		{in: "${}", want: "${}", problems: []string{"empty variable name"}},
		{in: "${A-B}", want: "${A-B}", problems: []string{"invalid variable name"}},
		{in: "${env:A-B}", want: "${env:A-B}", problems: []string{"invalid environment variable name"}},
		{in: "${command:pick}", want: "${command:pick}", problems: []string{"unsupported variable"}},
		{in: "Bearer ${input:tok}", want: "Bearer ${input:tok}", inputs: []string{"${input:tok}"}},
		{in: "${MISSING:-${input:tok}}", want: "${input:tok}", inputs: []string{"${input:tok}"}},
		{in: "${TOKEN:-${input:tok}}", want: "t0k"},
		{in: "Bearer ${input:given}", want: "Bearer g1v3n"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			x := e.expand(tt.in, tt.tilde)
			if x.value != tt.want {
				t.Errorf("value = %q, want %q", x.value, tt.want)
			}
			if len(x.problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d matching %q", x.problems, len(tt.problems), tt.problems)
			}
			for i, p := range tt.problems {
				if !strings.Contains(x.problems[i], p) {
					t.Errorf("problem %d = %q, want it to contain %q", i, x.problems[i], p)
				}
			}
			if !slices.Equal(x.inputs, tt.inputs) {
				t.Errorf("inputs = %q, want %q", x.inputs, tt.inputs)
			}
		})
	}
}

func TestExpandTildeWithoutHome(t *testing.T) {
	t.Parallel()
	e := &expander{lookupEnv: fakeEnv(nil)}
	x := e.expand("~/x", true)
	if len(x.problems) != 1 || !strings.Contains(x.problems[0], "home directory is unknown") {
		t.Fatalf("problems = %q, want one about the unknown home directory", x.problems)
	}
}

// TestExpandLinear guards against quadratic rescanning of nested
// defaults: a deeply nested default must still expand, in one pass.
func TestExpandLinear(t *testing.T) {
	t.Parallel()
	const depth = 100000
	in := strings.Repeat("${U:-", depth) + "end" + strings.Repeat("}", depth)
	e := &expander{lookupEnv: fakeEnv(nil)}
	x := e.expand(in, false)
	if x.value != "end" || len(x.problems) != 0 {
		t.Fatalf("value = %.40q problems = %d, want \"end\" and none", x.value, len(x.problems))
	}
}
