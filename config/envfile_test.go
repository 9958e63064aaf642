package config

import (
	"maps"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		want     map[string]string
		problems []int // line numbers
	}{
		{name: "basic", in: "A=1\nB=two words\n", want: map[string]string{"A": "1", "B": "two words"}},
		{name: "comments and blanks", in: "# c\n\n  # indented\nA=1\n", want: map[string]string{"A": "1"}},
		{name: "export", in: "export A=1\n", want: map[string]string{"A": "1"}},
		{name: "crlf", in: "A=1\r\nB=2\r\n", want: map[string]string{"A": "1", "B": "2"}},
		{name: "quotes", in: "A='x # y'\nB=\"a\\nb \\\"q\\\"\"\nC=\"# kept\" # dropped\n", want: map[string]string{"A": "x # y", "B": "a\nb \"q\"", "C": "# kept"}},
		{name: "inline comment", in: "A=v # note\nB=v#not-a-comment\n", want: map[string]string{"A": "v", "B": "v#not-a-comment"}},
		{name: "empty value", in: "A=\n", want: map[string]string{"A": ""}},
		{name: "equals in value", in: "URL=postgres://u:p@h/db?x=1\n", want: map[string]string{"URL": "postgres://u:p@h/db?x=1"}},
		{name: "problems", in: "A=1\nno pair\n1BAD=x\nQ=\"open\nR='open\n", want: map[string]string{"A": "1"}, problems: []int{2, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := parseEnvFile([]byte(tt.in))
			if !maps.Equal(got, tt.want) {
				t.Errorf("env = %q, want %q", got, tt.want)
			}
			var lines []int
			for _, p := range problems {
				lines = append(lines, p.line)
			}
			if len(lines) != len(tt.problems) {
				t.Fatalf("problems = %+v, want lines %v", problems, tt.problems)
			}
			for i := range lines {
				if lines[i] != tt.problems[i] {
					t.Errorf("problem %d on line %d, want %d", i, lines[i], tt.problems[i])
				}
			}
		})
	}
}
