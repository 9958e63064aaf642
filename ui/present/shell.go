package present

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

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

// CompactCommandLine fits a CommandLine into width cells for a table
// column: where it is too long, a path's folders give way first, the
// program's to its name ("node") and an argument's to its last three
// parts ("…/server-everything/dist/index.js"), word by word from the
// left until the line fits; what still does not fit is cut at the end.
// Every Node or Python server would otherwise show the same interpreter
// path, cut before its script. Quoted words and URLs are kept whole.
func CompactCommandLine(line string, width int) string {
	if ansi.StringWidth(line) <= width {
		return line
	}
	words := strings.Split(line, " ")
	for i, w := range words {
		if strings.ContainsAny(w, `'"\`) || strings.Contains(w, "://") || !strings.Contains(strings.TrimRight(w, "/"), "/") {
			continue
		}
		parts := strings.Split(strings.TrimRight(w, "/"), "/")
		switch {
		case i == 0:
			words[i] = parts[len(parts)-1]
		case len(parts) > 4:
			words[i] = "…/" + strings.Join(parts[len(parts)-3:], "/")
		default:
			continue
		}
		if s := strings.Join(words, " "); ansi.StringWidth(s) <= width {
			return s
		}
	}
	return Truncate(strings.Join(words, " "), width)
}
