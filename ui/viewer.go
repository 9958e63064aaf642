package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// viewer is what every text viewer modal shares (tool results, resources,
// prompt messages, tool details): a pager in a large modal box, and the
// keys all of them answer the same way: close, copy, save, search and
// scroll. A viewer embeds it and adds its own keys and its own rendering.
type viewer struct {
	c    *common
	p    *pager
	w, h int
}

func newViewer(c *common) viewer { return viewer{c: c, p: newPager(c)} }

// setSize sizes the modal; chrome is how many rows of it are not pager
// (borders, title, a header line).
func (v *viewer) setSize(w, h, chrome int) {
	v.w, v.h = modalSize(w, h)
	v.p.setSize(v.w-4, v.h-chrome)
}

// help lists the viewer's own actions first (the help bar truncates on
// narrow terminals), then the shared ones; while a search is typed, only
// the search's keys.
func (v *viewer) help(actions ...key.Binding) []key.Binding {
	if v.p.searching {
		return v.p.help()
	}
	k := v.c.keys
	return append(append(actions, k.Save, k.Copy, k.Search, k.Close), v.p.help()...)
}

// update answers the shared keys for the viewer self: a search being
// typed takes every key; close closes; copy copies the shown text as
// what ("result", "resource", …); save runs save. Any other key goes to
// own first (handled says it took it), then to the pager.
func (v *viewer) update(self modal, msg tea.KeyMsg, what string, save func() tea.Cmd,
	own func(tea.KeyMsg) (cmd tea.Cmd, handled bool)) (modal, tea.Cmd) {
	k := v.c.keys
	if v.p.searching {
		v.p.update(msg)
		return self, nil
	}
	switch {
	case key.Matches(msg, k.Close):
		return nil, nil
	case key.Matches(msg, k.Save):
		return self, save()
	case key.Matches(msg, k.Copy):
		text := v.p.text()
		return self, func() tea.Msg { return copyTextMsg{what: what, text: text} }
	}
	if own != nil {
		if cmd, ok := own(msg); ok {
			return self, cmd
		}
	}
	v.p.update(msg)
	return self, nil
}

// view draws the modal with title and the scroll position.
func (v *viewer) view(title string) string {
	return modalBox(v.c, title+v.p.percent(), v.p.view(), 0, v.w, v.h)
}
