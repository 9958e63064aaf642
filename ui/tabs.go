package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// Tab indexes, in display order.
const (
	tabOverview = iota
	tabTools
	tabRequests
	tabNotifications
	tabLogs
	tabTraffic
	tabCheck
	tabResources
	tabPrompts
	// tabClients exists only while the session serves MCP (--serve).
	tabClients
)

// tab is one page of the detail pane (the soft-serve Component contract:
// a size, a view and its own key help). Tabs read common and keep only
// their own scroll and filter state.
type tab interface {
	help.KeyMap
	Title() string
	SetSize(w, h int)
	View() string
	// Update handles a key while the detail pane has focus.
	Update(msg tea.KeyMsg) tea.Cmd
	// Filter is the tab's filter input, nil when it cannot filter.
	Filter() *textinput.Model
	FilterChanged()
	ServerChanged()
	DataChanged()
}

// modal is a dialog drawn over the body: forms, viewers, confirmations.
// Update returns nil to close it.
type modal interface {
	Update(msg tea.KeyMsg) (modal, tea.Cmd)
	SetSize(w, h int)
	View() string
	Help() []key.Binding
}

// base is what every tab embeds: its size and the common data.
type base struct {
	c    *common
	w, h int
}

func (b *base) SetSize(w, h int)          { b.w, b.h = w, h }
func (b *base) Filter() *textinput.Model  { return nil }
func (b *base) FilterChanged()            {}
func (b *base) ServerChanged()            {}
func (b *base) DataChanged()              {}
func (b *base) FullHelp() [][]key.Binding { return nil }

// fill pads rows to the tab's height with blank lines.
func (b *base) fill(rows []string) string {
	blank := strings.Repeat(" ", max(b.w, 0))
	for len(rows) < b.h {
		rows = append(rows, blank)
	}
	if len(rows) > b.h {
		rows = rows[:b.h]
	}
	return strings.Join(rows, "\n")
}

// filterNote is what a list's title says of its applied filter: in the
// warning style, with the key that clears it, since a filter left applied
// hides rows after the person has moved on (to another server, another
// tab, and back); "" when none is applied.
func filterNote(st styles.Styles, in *textinput.Model) string {
	f := in.Value()
	if f == "" {
		return ""
	}
	return st.Dim.Render(" · ") + st.Warning.Render("filter: "+present.Line(f)) + st.Dim.Render(" (esc clears)")
}

// empty is a tab's placeholder when there is nothing to show.
func (b *base) empty(text string) string {
	return b.fill([]string{padRight(b.c.st.Dim.Render(text), b.w)})
}

// cycle is i moved by d through n items, wrapping around at either end:
// tabs, choices, suggestions, search matches.
func cycle(i, d, n int) int { return ((i+d)%n + n) % n }

// navKeys moves a cursor through n items in h rows.
func navKeys(c *common, msg tea.KeyMsg, cur *cursor, n, h int) bool {
	k := c.keys
	switch {
	case key.Matches(msg, k.Up):
		cur.move(-1, n)
	case key.Matches(msg, k.Down):
		cur.move(1, n)
	case key.Matches(msg, k.PageUp):
		cur.move(-max(h-1, 1), n)
	case key.Matches(msg, k.PageDown):
		cur.move(max(h-1, 1), n)
	case key.Matches(msg, k.Top):
		cur.sel = 0
	case key.Matches(msg, k.Bottom):
		cur.sel = max(n-1, 0)
	default:
		return false
	}
	return true
}
