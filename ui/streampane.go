package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/present"
)

// streamPane is the scrolling, filterable, follow-or-pause list shared by
// the notifications, logs and traffic tabs. Only the rows in view are
// drawn, whatever the store holds.
type streamPane[T any] struct {
	base
	s      stream[T]
	f      follower
	filter textinput.Model
}

func newStreamPane[T any](c *common, r *ring[T]) streamPane[T] {
	return streamPane[T]{base: base{c: c}, s: stream[T]{r: r}, f: follower{follow: true}, filter: newFilterInput(c.st)}
}

// serverPane is a streamPane of the selected server's items that match
// the filter: the logs and traffic tabs. match says whether an item is of
// server and matches the filter.
type serverPane[T any] struct {
	streamPane[T]
	match func(item *T, server string, m matcher) bool
}

func newServerPane[T any](c *common, r *ring[T], match func(item *T, server string, m matcher) bool) serverPane[T] {
	p := serverPane[T]{streamPane: newStreamPane(c, r), match: match}
	p.rematch()
	return p
}

// FilterChanged implements tab.
func (p *serverPane[T]) FilterChanged() { p.rematch() }

// ServerChanged implements tab.
func (p *serverPane[T]) ServerChanged() { p.rematch() }

// DataChanged implements tab.
func (p *serverPane[T]) DataChanged() { p.s.catchUp() }

// rematch rebuilds the match function for the filter and server of now.
func (p *serverPane[T]) rematch() {
	m, server, match := parseFilter(p.filter.Value()), p.c.server, p.match
	p.s.setMatch(func(item *T) bool { return match(item, server, m) })
}

// header is the pane's first row: the server, following or paused, how
// many of its items match (one, many: the items' word) and the filter.
func (p *serverPane[T]) header(one, many string) string {
	st := p.c.st
	info := fmt.Sprintf("%s · %s · %s", p.c.server, p.followLabel(), present.Count(p.s.count(), one, many))
	return padRight(st.Dim.Render(info)+filterNote(st, &p.filter), p.w)
}

// Filter implements tab.
func (p *streamPane[T]) Filter() *textinput.Model { return &p.filter }

// nav handles the list keys over rows list rows; it reports whether the
// key was one of them.
func (p *streamPane[T]) nav(msg tea.KeyMsg, rows int) bool {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Up):
		streamMove(&p.f, &p.s, rows, -1)
	case key.Matches(msg, k.Down):
		streamMove(&p.f, &p.s, rows, 1)
	case key.Matches(msg, k.PageUp):
		streamMove(&p.f, &p.s, rows, -max(rows-1, 1))
	case key.Matches(msg, k.PageDown):
		streamMove(&p.f, &p.s, rows, max(rows-1, 1))
	case key.Matches(msg, k.Top):
		streamMove(&p.f, &p.s, rows, -p.s.count())
	case key.Matches(msg, k.Bottom):
		p.f.follow = true
	case key.Matches(msg, k.Pause):
		streamPause(&p.f, &p.s, rows)
	default:
		return false
	}
	return true
}

// rows draws the visible items into at most n rows.
func (p *streamPane[T]) rows(n int, draw func(item *T, selected bool) string) []string {
	count := p.s.count()
	sel, top := p.f.window(p.s.index, count, n)
	out := make([]string, 0, n)
	for i := top; i < count && len(out) < n; i++ {
		selected := i == sel && !p.f.follow
		// A marker as well as the highlight: the selection must show
		// without colour too.
		mark := "  "
		if selected {
			mark = "› "
		}
		out = append(out, padRight(mark+draw(p.s.r.at(p.s.seqAt(i)), selected), p.w))
	}
	return out
}

// selectedItem is the item under the cursor (the newest when following).
func (p *streamPane[T]) selectedItem(n int) *T {
	count := p.s.count()
	sel, _ := p.f.window(p.s.index, count, n)
	if sel < 0 {
		return nil
	}
	return p.s.r.at(p.s.seqAt(sel))
}

// followLabel says whether the stream follows new items.
func (p *streamPane[T]) followLabel() string {
	if p.f.follow {
		return "following"
	}
	return "paused (p to follow)"
}
