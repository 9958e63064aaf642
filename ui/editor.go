package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/styles"
)

// editor is a small multi-line text editor for raw JSON arguments (the
// bubbles textarea needs modules this build does not carry).
type editor struct {
	lines    [][]rune
	row, col int
	top      int
}

func (e *editor) set(s string) {
	e.lines = nil
	for _, l := range strings.Split(s, "\n") {
		e.lines = append(e.lines, []rune(l))
	}
	e.row, e.col, e.top = 0, 0, 0
}

func (e *editor) String() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// update edits on a key and reports whether the text changed.
func (e *editor) update(msg tea.KeyMsg) bool {
	if len(e.lines) == 0 {
		e.lines = [][]rune{{}}
	}
	line := e.lines[e.row]
	e.col = min(e.col, len(line))
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace, tea.KeyTab:
		r := msg.Runes
		switch msg.Type {
		case tea.KeySpace:
			r = []rune{' '}
		case tea.KeyTab:
			r = []rune{' ', ' '}
		}
		e.lines[e.row] = append(line[:e.col], append(append([]rune{}, r...), line[e.col:]...)...)
		e.col += len(r)
		return true
	case tea.KeyEnter:
		rest := append([]rune{}, line[e.col:]...)
		e.lines[e.row] = line[:e.col]
		e.lines = append(e.lines[:e.row+1], append([][]rune{rest}, e.lines[e.row+1:]...)...)
		e.row, e.col = e.row+1, 0
		return true
	case tea.KeyBackspace:
		switch {
		case e.col > 0:
			e.lines[e.row] = append(line[:e.col-1], line[e.col:]...)
			e.col--
		case e.row > 0:
			prev := e.lines[e.row-1]
			e.col = len(prev)
			e.lines[e.row-1] = append(prev, line...)
			e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
			e.row--
		default:
			return false
		}
		return true
	case tea.KeyDelete:
		switch {
		case e.col < len(line):
			e.lines[e.row] = append(line[:e.col], line[e.col+1:]...)
		case e.row+1 < len(e.lines):
			e.lines[e.row] = append(line, e.lines[e.row+1]...)
			e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
		default:
			return false
		}
		return true
	case tea.KeyUp:
		e.row = max(e.row-1, 0)
	case tea.KeyDown:
		e.row = min(e.row+1, len(e.lines)-1)
	case tea.KeyLeft:
		if e.col > 0 {
			e.col--
		} else if e.row > 0 {
			e.row--
			e.col = len(e.lines[e.row])
		}
	case tea.KeyRight:
		if e.col < len(line) {
			e.col++
		} else if e.row+1 < len(e.lines) {
			e.row, e.col = e.row+1, 0
		}
	case tea.KeyHome, tea.KeyCtrlA:
		e.col = 0
	case tea.KeyEnd:
		e.col = len(line)
	}
	return false
}

// view draws every line, the cursor on the current one.
func (e *editor) view(st styles.Styles, w int) []string {
	out := make([]string, 0, len(e.lines))
	for i, l := range e.lines {
		if i != e.row {
			out = append(out, truncate(string(l), w))
			continue
		}
		in := lineInput{value: l, pos: min(e.col, len(l))}
		out = append(out, in.View(st, true, w))
	}
	return out
}
