package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/ui/present"
)

// pager is the scrolling body of every text viewer (tool results,
// resources, prompt messages, tool details), with search: / types a
// query, enter jumps to the first match, n and N move between matches.
// Its lines are rendered (styled) once by the viewer; the search looks at
// their text without styling.
type pager struct {
	c         *common
	lines     []string
	plain     []string // lines without styling, lowercased, for the search
	top       int
	w, h      int
	searching bool
	query     textinput.Model
	matches   []int // line indexes holding the query
	match     int   // index into matches of the current one
}

func newPager(c *common) *pager {
	in := newLineInput(c.st)
	in.Prompt, in.PromptStyle = "/ ", c.st.Accent
	return &pager{c: c, query: in}
}

// setLines replaces the content, keeping the scroll position where it
// still fits (a re-read resource keeps its place).
func (p *pager) setLines(lines []string) {
	p.lines = lines
	p.plain = make([]string, len(lines))
	for i, l := range lines {
		p.plain[i] = strings.ToLower(ansi.Strip(l))
	}
	p.find()
	p.clamp()
}

func (p *pager) setSize(w, h int) {
	p.w, p.h = w, max(h, 1)
	setLineWidth(&p.query, w)
	p.clamp()
}

// rows is how many content rows show: one goes to the search line while
// it is typed or while matches are shown.
func (p *pager) rows() int {
	if p.searching || p.query.Value() != "" {
		return max(p.h-1, 1)
	}
	return p.h
}

func (p *pager) clamp() { p.top = min(max(p.top, 0), max(len(p.lines)-p.rows(), 0)) }

// find collects the lines holding the query.
func (p *pager) find() {
	p.matches = p.matches[:0]
	q := strings.ToLower(strings.TrimSpace(p.query.Value()))
	if q == "" {
		return
	}
	for i, l := range p.plain {
		if strings.Contains(l, q) {
			p.matches = append(p.matches, i)
		}
	}
	p.match = min(p.match, max(len(p.matches)-1, 0))
}

// show scrolls the current match into view.
func (p *pager) show() {
	if len(p.matches) == 0 {
		return
	}
	line := p.matches[p.match]
	if line < p.top || line >= p.top+p.rows() {
		p.top = line - p.rows()/3
	}
	p.clamp()
}

// help is the pager's share of a viewer's help bar.
func (p *pager) help() []key.Binding {
	k := p.c.keys
	if p.searching {
		return []key.Binding{k.Search, k.ApplyFilter, k.ClearFilter}
	}
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Search, k.NextMatch, k.PrevMatch}
}

// update scrolls or searches; it reports whether it used the key.
func (p *pager) update(msg tea.KeyMsg) bool {
	k := p.c.keys
	if p.searching {
		switch {
		case key.Matches(msg, k.ApplyFilter):
			p.searching = false
			p.query.Blur()
			p.match = 0
			p.show()
		case key.Matches(msg, k.ClearFilter):
			p.searching = false
			p.query.Blur()
			p.query.SetValue("")
			p.find()
			p.clamp()
		default:
			if editLine(&p.query, msg) {
				p.match = 0
				p.find()
				p.show()
			}
		}
		return true
	}
	switch {
	case key.Matches(msg, k.Up):
		p.top--
	case key.Matches(msg, k.Down):
		p.top++
	case key.Matches(msg, k.PageUp):
		p.top -= max(p.rows()-1, 1)
	case key.Matches(msg, k.PageDown):
		p.top += max(p.rows()-1, 1)
	case key.Matches(msg, k.Top):
		p.top = 0
	case key.Matches(msg, k.Bottom):
		p.top = len(p.lines)
	case key.Matches(msg, k.Search):
		p.searching = true
		p.query.Focus()
		return true
	case key.Matches(msg, k.NextMatch) && len(p.matches) > 0:
		p.match = cycle(p.match, 1, len(p.matches))
		p.show()
		return true
	case key.Matches(msg, k.PrevMatch) && len(p.matches) > 0:
		p.match = cycle(p.match, -1, len(p.matches))
		p.show()
		return true
	default:
		return false
	}
	p.clamp()
	return true
}

// view is the visible rows, padded to the pager's size; a match's line
// is marked in the gutter so it shows without colour too.
func (p *pager) view() []string {
	st := p.c.st
	rows := p.rows()
	out := make([]string, 0, p.h)
	current := -1
	if len(p.matches) > 0 {
		current = p.matches[p.match]
	}
	for i := p.top; i < len(p.lines) && len(out) < rows; i++ {
		l := p.lines[i]
		if i == current {
			l = st.Selected.Render(padRight(ansi.Strip(l), p.w))
		}
		out = append(out, padRight(l, p.w))
	}
	for len(out) < rows {
		out = append(out, strings.Repeat(" ", max(p.w, 0)))
	}
	if rows < p.h {
		out = append(out, p.searchLine())
	}
	return out
}

func (p *pager) searchLine() string {
	st := p.c.st
	if p.searching {
		return lineView(&p.query, p.w)
	}
	q := present.Line(p.query.Value())
	switch n := len(p.matches); {
	case n == 0:
		return padRight(st.Warning.Render(fmt.Sprintf("/%s: no match", q)), p.w)
	default:
		return padRight(st.Dim.Render(fmt.Sprintf("/%s: match %d of %d (n next, N previous)", q, p.match+1, n)), p.w)
	}
}

// percent is how far down the pager is scrolled, for a viewer's title;
// "" when everything fits.
func (p *pager) percent() string {
	if len(p.lines) <= p.rows() {
		return ""
	}
	end := min(p.top+p.rows(), len(p.lines))
	return fmt.Sprintf("  %d–%d of %d", p.top+1, end, len(p.lines))
}

// text is the content as plain text, for copy and save.
func (p *pager) text() string {
	var b strings.Builder
	for _, l := range p.lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
