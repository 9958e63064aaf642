package ui

import (
	"strings"

	caret "github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/styles"
)

// newEditor is the multi-line editor for raw JSON arguments
// (bubbles/textarea), styled from st: no prompt, no line numbers and no
// highlighted line, so the JSON reads as it will be sent. Like the
// one-line input, its cursor does not blink and ctrl+v is off.
func newEditor(st styles.Styles) textarea.Model {
	ed := textarea.New()
	ed.Prompt = ""
	ed.ShowLineNumbers = false
	ed.CharLimit = 0 // arguments may be long; the runtime bounds what is sent
	ed.MaxHeight = 0
	plain := textarea.Style{
		Base:             st.Text,
		CursorLine:       st.Text,
		CursorLineNumber: st.Faint,
		EndOfBuffer:      st.Faint,
		LineNumber:       st.Faint,
		Placeholder:      st.Faint,
		Prompt:           st.Faint,
		Text:             st.Text,
	}
	ed.FocusedStyle, ed.BlurredStyle = plain, plain
	ed.Cursor.Style = st.Cursor
	ed.Cursor.SetMode(caret.CursorStatic)
	ed.KeyMap.Paste.SetEnabled(false)
	ed.Focus()
	return ed
}

// setEditorText replaces the text and puts the cursor at its start, where
// a person reads JSON from.
func setEditorText(ed *textarea.Model, s string) {
	ed.SetValue(s)
	for ed.Line() > 0 {
		ed.CursorUp()
	}
	ed.CursorStart()
}

// editText feeds a key to ed and reports whether its text changed. Tab
// indents by two spaces, as the JSON it is given is indented.
func editText(ed *textarea.Model, msg tea.KeyMsg) bool {
	if msg.Type == tea.KeyTab {
		msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("  ")}
	}
	before := ed.Value()
	*ed, _ = ed.Update(spaceRunes(msg))
	return ed.Value() != before
}

// editorRows estimates how many rows the text takes at width w: enough
// for the editor to grow with its text instead of scrolling early. The
// widget wraps at words, so a long line may take a row more than this;
// the editor then scrolls, keeping its cursor in view.
func editorRows(text string, w int) int {
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		rows += max(1, (len([]rune(l))+w-1)/max(w, 1))
	}
	return rows
}
