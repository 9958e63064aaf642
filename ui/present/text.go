package present

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Plural picks the word for n: one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the word for it: "1 tool", "14 tools".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many))
}

// Truncate cuts s to width terminal cells with an ellipsis. Styling
// escapes mcpdeck added are kept (ansi.Truncate knows them); s must already
// be clean of anything a server sent.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// TruncateWords cuts s to width cells at a word boundary where one is near
// enough, so a message never ends mid-word; the cut is marked with "…".
func TruncateWords(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 1 {
		return Truncate(s, width)
	}
	cut := ansi.Truncate(s, width-1, "")
	if i := strings.LastIndexByte(cut, ' '); i > 0 && ansi.StringWidth(cut[:i]) >= width/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// Wrap breaks text into lines of at most width cells at word boundaries;
// only a word longer than a whole line is broken.
func Wrap(text string, width int) []string {
	if width < 1 {
		width = 1
	}
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// OrDash is s, or a dash when s is empty: a column that says "nothing"
// rather than looking broken.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// OrHyphen is OrDash with an ASCII hyphen, for command-line output that
// scripts split on.
func OrHyphen(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
