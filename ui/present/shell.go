package present

import "strings"

// CommandLine renders a command and its arguments so they can be pasted
// into a POSIX shell and run as they are: a word with anything the shell
// would interpret is single-quoted (a quote inside as '\”), so no $,
// backquote or glob in it expands. Each word is cleaned first: a command
// line is shown, and what it holds may have come from a project file.
func CommandLine(command string, args []string) string {
	words := make([]string, 0, 1+len(args))
	for _, a := range append([]string{command}, args...) {
		words = append(words, ShellQuote(Line(a)))
	}
	return strings.Join(words, " ")
}

// ShellQuote quotes one word for a POSIX shell when it needs it.
func ShellQuote(a string) string {
	if a == "" {
		return "''"
	}
	if !strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;#~!") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
