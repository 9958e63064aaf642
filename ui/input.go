package ui

import (
	"strings"

	caret "github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/ui/styles"
)

// newLineInput is a one-line text input (bubbles/textinput) styled from
// st, for filters and form fields. The cursor does not blink: a blinking
// cursor would cost a frame twice a second and make frames depend on
// time. ctrl+v is off: terminals paste on their own (bracketed paste),
// and reading the clipboard would start xclip or pbpaste under the UI.
func newLineInput(st styles.Styles) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.TextStyle = st.Text
	in.PlaceholderStyle = st.Faint
	in.Cursor.Style = st.Cursor
	in.Cursor.TextStyle = st.Text
	in.Cursor.SetMode(caret.CursorStatic)
	in.KeyMap.Paste.SetEnabled(false)
	// No suggestions are offered, so tab, ↑ and ↓ stay the form's.
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	return in
}

// newFilterInput is a tab's filter, typed on the status line after /.
func newFilterInput(st styles.Styles) textinput.Model {
	in := newLineInput(st)
	in.Prompt, in.PromptStyle = "/ ", st.Accent
	return in
}

// editLine feeds a key to in and reports whether its text changed.
func editLine(in *textinput.Model, msg tea.KeyMsg) bool {
	before := in.Value()
	*in, _ = in.Update(spaceRunes(msg)) // a static cursor has no command to run
	return in.Value() != before
}

// spaceRunes gives a space key its rune: the widgets type a key's runes,
// and a synthesized space key may come without one.
func spaceRunes(msg tea.KeyMsg) tea.KeyMsg {
	if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
		msg.Runes = []rune{' '}
	}
	return msg
}

// setLineWidth sizes in to draw in width cells, its cursor included.
func setLineWidth(in *textinput.Model, width int) {
	w := max(width-ansi.StringWidth(in.Prompt)-1, 1) // the cursor takes a cell past the text
	if in.Width == w {
		return
	}
	in.Width = w
	// The input scrolls only when its cursor moves: move it to the end and
	// back so the visible window fits the new width.
	pos := in.Position()
	in.CursorEnd()
	in.SetCursor(pos)
}

// lineView draws in in exactly width cells.
func lineView(in *textinput.Model, width int) string { return padRight(in.View(), width) }

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

// fieldLabel is a form's label in the width w before its required
// marker: padded, or, when it does not fit, cut with "…" and a space, so
// the marker that follows stays apart ("a_long_na… *", never
// "a_long_nam…*"). A label that fits may end at the marker ("name*").
func fieldLabel(s string, w int) string {
	if ansi.StringWidth(s) <= w || w < 2 {
		return padRight(s, w)
	}
	return padRight(s, w-1) + " "
}

// stripStyle removes styling so a selected row can be restyled whole.
func stripStyle(s string) string { return ansi.Strip(s) }
