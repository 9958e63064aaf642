package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/ui/styles"
)

// lineInput is a one-line text editor. bubbles/textinput would do, but it
// pulls a clipboard module this build does not carry; editing one line
// needs little.
type lineInput struct {
	value []rune
	pos   int
}

// Set replaces the text and moves the cursor to its end.
func (in *lineInput) Set(s string) { in.value, in.pos = []rune(s), len([]rune(s)) }

// String is the text.
func (in *lineInput) String() string { return string(in.value) }

// Update edits on a key and reports whether the text changed.
func (in *lineInput) Update(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		r := msg.Runes
		if msg.Type == tea.KeySpace {
			r = []rune{' '}
		}
		in.value = append(in.value[:in.pos], append(append([]rune{}, r...), in.value[in.pos:]...)...)
		in.pos += len(r)
		return true
	case tea.KeyBackspace:
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
			return true
		}
	case tea.KeyDelete:
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
			return true
		}
	case tea.KeyLeft:
		in.pos = max(in.pos-1, 0)
	case tea.KeyRight:
		in.pos = min(in.pos+1, len(in.value))
	case tea.KeyHome, tea.KeyCtrlA:
		in.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		in.pos = len(in.value)
	case tea.KeyCtrlU:
		changed := len(in.value) > 0
		in.value, in.pos = in.value[:0], 0
		return changed
	case tea.KeyCtrlW:
		start := in.pos
		for start > 0 && in.value[start-1] == ' ' {
			start--
		}
		for start > 0 && in.value[start-1] != ' ' {
			start--
		}
		changed := start != in.pos
		in.value = append(in.value[:start], in.value[in.pos:]...)
		in.pos = start
		return changed
	}
	return false
}

// View draws the text in width cells, scrolled so the cursor shows; a
// focused input draws its cursor.
func (in *lineInput) View(st styles.Styles, focused bool, width int) string {
	if width < 1 {
		return ""
	}
	start := 0
	if in.pos >= width {
		start = in.pos - width + 1
	}
	vis := in.value[start:min(len(in.value), start+width)]
	if !focused {
		return padRight(string(vis), width)
	}
	cur := in.pos - start
	var b strings.Builder
	b.WriteString(string(vis[:min(cur, len(vis))]))
	under := " "
	if cur < len(vis) {
		under = string(vis[cur])
	}
	b.WriteString(st.Cursor.Render(under))
	if cur+1 < len(vis) {
		b.WriteString(string(vis[cur+1:]))
	}
	return padRight(b.String(), width)
}

// padRight pads s with spaces to width cells, truncating with an ellipsis
// when it is wider. Every row goes through it so nothing ever wraps.
func padRight(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	return s + strings.Repeat(" ", width-w)
}

// truncate cuts s to width cells with an ellipsis, without padding.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// stripStyle removes styling so a selected row can be restyled whole.
func stripStyle(s string) string { return ansi.Strip(s) }
