package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestSubcommandTable: the names newRootCmdFor finds commands by are the
// commands' own, and no command has an alias it would miss.
func TestSubcommandTable(t *testing.T) {
	for _, sc := range subcommands {
		c := sc.build()
		if c.Name() != sc.name || len(c.Aliases) > 0 || len(c.SuggestFor) > 0 {
			t.Errorf("subcommands lists %q, its constructor builds %q (aliases %q, suggested for %q)", sc.name, c.Name(), c.Aliases, c.SuggestFor)
		}
	}
}

func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	return names
}

// TestOneShotBuildsOnlyItsCommand: a run that names a command builds that
// command alone (its flags were a tenth of a one-shot's start-up); one
// that names none, or one cobra does not know, builds the whole tree.
func TestOneShotBuildsOnlyItsCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "--stdio", "srv x", "echo", `{"text":"hi"}`}, "call"},
		{[]string{"version"}, "version"},
		{[]string{"--config", "a.json", "--trust-project", "servers", "list"}, "servers"},
		{[]string{"--stdio", "srv", "call", "--help"}, "call"},
		{[]string{"demo-server"}, "demo-server"},
	} {
		if got := commandNames(newRootCmdFor(tc.args)); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("mcpdeck %s built %q, want only %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	all := len(subcommands)
	for _, args := range [][]string{nil, {"--help"}, {"help", "call"}, {"cal"}, {"--enable"}, {"__complete", "call", ""}, {"completion", "bash"}, {"--bogus", "call"}} {
		if got := commandNames(newRootCmdFor(args)); len(got) != all {
			t.Errorf("mcpdeck %s built %d commands, want all %d", strings.Join(args, " "), len(got), all)
		}
	}
}

// TestPartialTreeAnswersAsTheWholeTree: for every command, its help, help
// through the help command, its flag completion, an unknown flag, a flag
// of the root's before it and a typo of a subcommand print the same and
// exit the same from the tree a run builds as from the whole tree.
func TestPartialTreeAnswersAsTheWholeTree(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if len(path) > 0 {
			paths = append(paths, path)
		}
		for _, s := range c.Commands() {
			walk(s, append(slices.Clone(path), s.Name()))
		}
	}
	walk(newRootCmd(), nil)
	if len(paths) < len(subcommands)+10 {
		t.Fatalf("walked %d command paths, want every command and subcommand", len(paths))
	}
	var cases [][]string
	for _, p := range paths {
		cases = append(cases,
			append(slices.Clone(p), "--help"),
			append([]string{"help"}, p...),
			append(append([]string{"__complete"}, p...), "-"),
			append(slices.Clone(p), "--no-such-flag"),
			append([]string{"--config", "/nonexistent/mcp.json", "--trust-project"}, append(slices.Clone(p), "-h")...),
			append(slices.Clone(p), "nosuchsub", "--help"),
		)
	}
	cases = append(cases, []string{"cal"}, []string{"--help"}, []string{"--version"}, []string{"--bogus", "call"})
	for _, args := range cases {
		var wantOut, wantErr, gotOut, gotErr bytes.Buffer
		want := runRoot(newRootCmd(), args, strings.NewReader(""), &wantOut, &wantErr)
		got := run(args, strings.NewReader(""), &gotOut, &gotErr)
		if got != want || gotOut.String() != wantOut.String() || gotErr.String() != wantErr.String() {
			t.Errorf("mcpdeck %s: exit %d, stdout %q, stderr %q from the tree the run builds; the whole tree: exit %d, stdout %q, stderr %q",
				strings.Join(args, " "), got, gotOut.String(), gotErr.String(), want, wantOut.String(), wantErr.String())
		}
	}
}
