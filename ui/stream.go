package ui

import (
	"sort"

	tea "github.com/charmbracelet/bubbletea"
)

// stream is a filtered view over a ring. With a match function it keeps
// the sequence numbers of the matching items, extended incrementally as
// items arrive, so a filter over 50,000 items costs one scan when it
// changes and nothing per frame.
type stream[T any] struct {
	r       *ring[T]
	match   func(*T) bool // nil shows everything
	matches []uint64      // ascending seqs of matching items, when match != nil
	scanned uint64        // items before this seq have been matched
}

// setMatch replaces the filter and rescans the kept items.
func (s *stream[T]) setMatch(match func(*T) bool) {
	s.match = match
	s.matches = s.matches[:0]
	s.scanned = s.r.oldest()
	s.catchUp()
}

// catchUp matches the items appended since the last call.
func (s *stream[T]) catchUp() {
	if s.match == nil {
		s.scanned = s.r.next
		return
	}
	for seq := max(s.scanned, s.r.oldest()); seq < s.r.next; seq++ {
		if s.match(s.r.at(seq)) {
			s.matches = append(s.matches, seq)
		}
	}
	s.scanned = s.r.next
	// Forget matches the ring has overwritten.
	if len(s.matches) > 0 && s.matches[0] < s.r.oldest() {
		i := sort.Search(len(s.matches), func(i int) bool { return s.matches[i] >= s.r.oldest() })
		s.matches = s.matches[i:]
	}
}

// count is the number of visible items.
func (s *stream[T]) count() int {
	if s.match == nil {
		return s.r.len()
	}
	return len(s.matches)
}

// seqAt is the seq of the i-th visible item.
func (s *stream[T]) seqAt(i int) uint64 {
	if s.match == nil {
		return s.r.oldest() + uint64(i)
	}
	return s.matches[i]
}

// index is the position of the first visible item with a seq >= seq.
func (s *stream[T]) index(seq uint64) int {
	if s.match == nil {
		if seq < s.r.oldest() {
			return 0
		}
		return min(int(seq-s.r.oldest()), s.r.len())
	}
	return sort.Search(len(s.matches), func(i int) bool { return s.matches[i] >= seq })
}

// follower is the scroll state of a stream: it either follows the newest
// item or stays where the user left it. Positions are kept as seqs so
// arrivals and overwrites never move what the user is looking at.
type follower struct {
	follow   bool
	sel, top uint64
}

// window computes the selected index and the first visible index for a
// viewport of h rows over n items, without changing the state.
func (f follower) window(idx func(uint64) int, n, h int) (sel, top int) {
	if n == 0 || h <= 0 {
		return -1, 0
	}
	if f.follow {
		return n - 1, max(0, n-h)
	}
	sel = min(idx(f.sel), n-1)
	top = min(idx(f.top), max(0, n-h))
	if sel < top {
		top = sel
	}
	if sel >= top+h {
		top = sel - h + 1
	}
	return sel, top
}

// move shifts the selection by delta rows (a large delta pages), pausing
// the stream; landing on the newest item resumes following.
func streamMove[T any](f *follower, s *stream[T], h, delta int) {
	n := s.count()
	if n == 0 {
		return
	}
	sel, top := f.window(s.index, n, h)
	to := min(max(sel+delta, 0), n-1)
	if delta > 0 && to == n-1 {
		f.follow = true
		return
	}
	f.follow = false
	switch {
	case to < top:
		top = to
	case to >= top+h:
		top = to - h + 1
	}
	f.sel, f.top = s.seqAt(to), s.seqAt(top)
}

// streamPause toggles following, freezing the view where it is.
func streamPause[T any](f *follower, s *stream[T], h int) {
	if f.follow {
		n := s.count()
		if n == 0 {
			f.follow = false
			return
		}
		sel, top := f.window(s.index, n, h)
		f.follow, f.sel, f.top = false, s.seqAt(sel), s.seqAt(top)
		return
	}
	f.follow = true
}

// cursor is the selection of a plain list that is rebuilt from a snapshot.
type cursor struct{ sel, top int }

// window clamps the cursor to n items in h rows and returns it.
func (c *cursor) window(n, h int) (sel, top int) {
	if n == 0 {
		c.sel, c.top = 0, 0
		return -1, 0
	}
	c.sel = min(max(c.sel, 0), n-1)
	if h <= 0 {
		return c.sel, 0
	}
	c.top = min(max(c.top, 0), max(0, n-h))
	if c.sel < c.top {
		c.top = c.sel
	}
	if c.sel >= c.top+h {
		c.top = c.sel - h + 1
	}
	return c.sel, c.top
}

// move shifts the selection, clamped to the list.
func (c *cursor) move(delta, n int) { c.sel = min(max(c.sel+delta, 0), max(n-1, 0)) }

// actOnSelected is the command that sends msg(the selected item) of items
// shown in h rows; nil when nothing is selected. The item is captured now,
// so the command never reads the model.
func actOnSelected[T any](cur *cursor, items []T, h int, msg func(T) tea.Msg) tea.Cmd {
	sel, _ := cur.window(len(items), h)
	if sel < 0 {
		return nil
	}
	it := items[sel]
	return func() tea.Msg { return msg(it) }
}
