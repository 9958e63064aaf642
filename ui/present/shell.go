package present

import (
	"strings"

	"mcpdeck/config"
)

// CommandLine renders a command and its arguments so they can be pasted
// into a POSIX shell and run as they are (config.ShellQuote). Each word is
// cleaned first: a command line is shown, and what it holds may have come
// from a project file.
func CommandLine(command string, args []string) string {
	return strings.Join(CommandWords(command, args), " ")
}

// CommandWords are CommandLine's words, each cleaned and quoted, for a
// face that wraps a long command line between words rather than inside
// a quoted one.
func CommandWords(command string, args []string) []string {
	words := make([]string, 0, 1+len(args))
	for _, a := range append([]string{command}, args...) {
		words = append(words, config.ShellQuote(Line(a)))
	}
	return words
}
