package present

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"mcpdeck/runtime"
)

// Text from a server is data, never terminal control: a tool description
// holding ESC ] 52 would write the person's clipboard, ESC ] 0 would set
// the window title, a CSI would move the cursor over what mcpdeck drew.
// Every string a server chose passes through Clean (or Line, or OneLine)
// before either face shows it. What is removed is made visible rather than
// dropped, so a person can still see that the server tried.

// Clean returns s with every character a terminal would act on made
// visible: C0 controls and DEL as \xNN (ESC as \x1b, BEL as \x07), C1
// controls and the invisible direction and line controls (bidi overrides,
// isolates and marks, U+2028/U+2029) as \uNNNN, bytes that are not UTF-8
// as \xNN. Newlines and tabs are kept: both faces decide what to do with
// them (Line flattens them). A CR before a newline is dropped; any other
// CR is shown as \r, since it would let a line overwrite itself.
func Clean(s string) string {
	if safe(s, true) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF line ends are common and say nothing.
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case invisibleControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line is Clean for one row: a newline and the blanks around it become
// " ⏎ ", a tab a space, so a multi-line value cannot break a table or a
// pane and still shows where its lines were.
func Line(s string) string {
	if safe(s, false) {
		return s
	}
	s = strings.ReplaceAll(Clean(s), "\t", " ")
	if !strings.Contains(s, "\n") {
		return s
	}
	parts := strings.Split(s, "\n")
	for i := range parts {
		if i > 0 {
			parts[i] = strings.TrimLeft(parts[i], " ")
		}
		if i < len(parts)-1 {
			parts[i] = strings.TrimRight(parts[i], " ")
		}
	}
	return strings.Join(parts, " ⏎ ")
}

// OneLine is Line cut to at most limit runes, the cut marked with "…"; a
// limit of 0 or less means no limit.
func OneLine(s string, limit int) string {
	s = Line(s)
	if limit > 0 && len(s) > limit && utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = string(r[:limit]) + "…"
	}
	return s
}

// Block is Clean for a multi-line pane of the terminal UI, where a tab has
// no width: tabs become four spaces.
func Block(s string) string {
	s = Clean(s)
	if strings.Contains(s, "\t") {
		s = strings.ReplaceAll(s, "\t", "    ")
	}
	return s
}

// Visible reports whether s holds nothing Clean would change apart from
// newlines and tabs: what a test asserts about text that reached a face.
func Visible(s string) bool { return Clean(s) == s }

// safe is the fast path: printable ASCII (and, when lines is set, newlines
// and tabs) needs no work.
func safe(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if lines && (c == '\n' || c == '\t') {
			continue
		}
		if c >= utf8.RuneSelf {
			return safeUnicode(s[i:], lines)
		}
		return false
	}
	return true
}

// safeUnicode is safe for the rest of a string past its first non-ASCII
// byte.
func safeUnicode(s string, lines bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r == '\n' || r == '\t':
			if !lines {
				return false
			}
		case r < 0x20 || r == 0x7f || invisibleControl(r):
			return false
		}
		i += size
	}
	return true
}

// invisibleControl reports the non-ASCII characters a terminal acts on or
// that reorder what is shown: C1 controls (U+009B is CSI on some
// terminals), the bidirectional controls that make text read differently
// from what it is (Trojan Source), and the line and paragraph separators.
func invisibleControl(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// ShowHidden makes visible what Clean leaves as it is because it is
// ordinary text elsewhere (an emoji's joiner): zero-width characters and
// Unicode tag characters, as \uXXXX and \UXXXXXXXX. Both faces use it
// for a tool's title and description and in a changed definition's diff,
// where a hidden word is an instruction to the model (tool poisoning).
func ShowHidden(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidden(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func hidden(r rune) bool { return runtime.ZeroWidth(r) || runtime.TagChar(r) }
