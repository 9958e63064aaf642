package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/present"
)

// chooser is a small list to pick one item from: a log level, a linked
// resource. enter picks, esc closes without.
type chooser struct {
	c     *common
	title string
	note  string
	items []string
	cur   cursor
	pick  func(i int) tea.Msg
	w, h  int
}

func newChooser(c *common, title, note string, items []string, selected int, pick func(i int) tea.Msg) *chooser {
	ch := &chooser{c: c, title: title, note: note, items: items, pick: pick}
	ch.cur.sel = max(selected, 0)
	return ch
}

func (ch *chooser) SetSize(w, h int) { ch.w, ch.h = min(max(w-10, 40), 80), h }

func (ch *chooser) Help() []key.Binding {
	k := ch.c.keys
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Select, "choose"), k.Back}
}

func (ch *chooser) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := ch.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Select):
		i, pick := ch.cur.sel, ch.pick
		return nil, func() tea.Msg { return pick(i) }
	}
	navKeys(ch.c, msg, &ch.cur, len(ch.items), ch.rows())
	return ch, nil
}

func (ch *chooser) rows() int { return max(min(len(ch.items), ch.h-6), 1) }

func (ch *chooser) View() string {
	st := ch.c.st
	var body []string
	if ch.note != "" {
		body = append(body, st.Dim.Render(present.Truncate(ch.note, ch.w-4)), "")
	}
	sel, top := ch.cur.window(len(ch.items), ch.rows())
	for i := top; i < len(ch.items) && i < top+ch.rows(); i++ {
		line := "  " + present.Line(ch.items[i])
		if i == sel {
			line = st.Selected.Render(padRight("› "+present.Line(ch.items[i]), ch.w-4))
		}
		body = append(body, line)
	}
	return modalBox(ch.c, ch.title, body, 0, ch.w, min(ch.h, len(body)+3))
}
