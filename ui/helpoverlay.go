package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// helpOverlay is the full key reference (?): the key map's sections, each
// titled with the place its keys work in and listing each key once,
// side by side as the width allows; scrollable when it does not fit.
type helpOverlay struct {
	c    *common
	w, y int
	top  int
}

func newHelpOverlay(c *common) *helpOverlay { return &helpOverlay{c: c} }

func (o *helpOverlay) SetSize(w, h int) { o.w, o.y = min(w-4, 130), h }

func (o *helpOverlay) Help() []key.Binding {
	k := o.c.keys
	return []key.Binding{k.Up, k.Down, k.Close, k.Help}
}

func (o *helpOverlay) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := o.c.keys
	switch {
	case key.Matches(msg, k.Close) || key.Matches(msg, k.Help):
		return nil, nil
	case key.Matches(msg, k.Up):
		o.top = max(o.top-1, 0)
	case key.Matches(msg, k.Down):
		o.top = min(o.top+1, o.maxTop(len(o.body())))
	}
	return o, nil
}

// helpColumnWidth is the narrowest a column of sections gets.
const helpColumnWidth = 35

// body lays the sections out side by side, as many as the width takes.
func (o *helpOverlay) body() []string {
	inner := max(o.w-4, 20)
	per := max(min(inner/helpColumnWidth, 3), 1)
	colW := (inner - 2*(per-1)) / per
	secs := o.c.keys.HelpSections()
	var body []string
	for i := 0; i < len(secs); i += per {
		row := secs[i:min(i+per, len(secs))]
		blocks := make([][]string, len(row))
		height := 0
		for j, s := range row {
			blocks[j] = o.section(s, colW)
			height = max(height, len(blocks[j]))
		}
		for l := range height {
			var cells []string
			for _, b := range blocks {
				cell := ""
				if l < len(b) {
					cell = b[l]
				}
				cells = append(cells, padRight(cell, colW))
			}
			body = append(body, strings.TrimRight(strings.Join(cells, "  "), " "))
		}
		body = append(body, "")
	}
	return append(body, o.c.st.Dim.Render("Filters: words match anywhere; method:x, level:x and server:x match those fields."))
}

// section draws one section in w cells: its title, then a line per
// binding, the descriptions wrapped beside the keys.
func (o *helpOverlay) section(s keys.HelpSection, w int) []string {
	st := o.c.st
	keyW := 0
	for _, b := range s.Bindings {
		keyW = max(keyW, ansi.StringWidth(b.Help().Key))
	}
	out := []string{st.ModalTitle.Render(s.Title)}
	for _, b := range s.Bindings {
		for i, l := range present.Wrap(b.Help().Desc, max(w-keyW-1, 8)) {
			label := ""
			if i == 0 {
				label = b.Help().Key
			}
			out = append(out, st.HelpKey.Render(padRight(label, keyW))+" "+st.HelpDesc.Render(l))
		}
	}
	return out
}

// textRows is how many of n body lines show at once: all of them, or all
// but the row that says the help scrolls (as a dialog's does).
func (o *helpOverlay) textRows(n int) int {
	rows := max(o.y-3, 1) // border and title
	if n > rows {
		rows = max(rows-1, 1)
	}
	return rows
}

func (o *helpOverlay) maxTop(n int) int { return max(n-o.textRows(n), 0) }

func (o *helpOverlay) View() string {
	body := o.body()
	rows := o.textRows(len(body))
	if len(body) > rows {
		top := min(o.top, o.maxTop(len(body)))
		body = append(append([]string(nil), body[top:top+rows]...), scrollNote(o.c, top, rows, len(body)))
	}
	return modalBox(o.c, "Keys", body, 0, o.w, min(len(body)+3, o.y))
}
