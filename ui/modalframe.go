package ui

import (
	"fmt"
	"strings"
)

// modalBox draws a bordered dialog of exactly w×h cells: a title, then
// body lines scrolled so that line keep stays visible.
func modalBox(c *common, title string, body []string, keep, w, h int) string {
	inner := max(w-4, 1) // border and padding
	rows := max(h-3, 1)  // border and title
	top := 0
	if keep >= rows {
		top = keep - rows + 1
	}
	top = min(top, max(len(body)-rows, 0))
	out := make([]string, 0, rows+1)
	out = append(out, padRight(c.st.ModalTitle.Render(title), inner))
	for i := top; i < len(body) && len(out) <= rows; i++ {
		out = append(out, padRight(body[i], inner))
	}
	for len(out) <= rows {
		out = append(out, strings.Repeat(" ", inner))
	}
	return c.st.Modal.Width(w - 2).Render(strings.Join(out, "\n"))
}

// modalSize is how much of the body a large modal takes.
func modalSize(w, h int) (int, int) { return max(w-4, 20), max(h, 5) }

// modalPinned draws a modal whose head (a description, a question) and
// foot (a verdict, what the next key does) stay in view while the body
// between them scrolls to keep line keep of the body visible. A modal too
// short to leave the body three rows scrolls as one, as modalBox does.
func modalPinned(c *common, title string, head, body, foot []string, keep, w, h int) string {
	rows := max(h-3, 1)
	room := rows - len(head) - len(foot)
	all := make([]string, 0, len(head)+len(body)+len(foot))
	all = append(append(append(all, head...), body...), foot...)
	if len(all) <= rows || room < 3 {
		return modalBox(c, title, all, keep+len(head), w, h)
	}
	top := 0
	if keep >= room {
		top = keep - room + 1
	}
	top = min(top, max(len(body)-room, 0))
	shown := make([]string, 0, rows)
	shown = append(append(append(shown, head...), body[top:min(top+room, len(body))]...), foot...)
	return modalBox(c, title, shown, 0, w, h)
}

// scrollNote is the last row of a modal whose body is taller than it
// (a dialog, the help): which lines show, of how many, and how to see
// the rest.
func scrollNote(c *common, top, rows, total int) string {
	return c.st.Dim.Render(fmt.Sprintf("lines %d–%d of %d · ↑/↓ scroll", top+1, top+rows, total))
}
