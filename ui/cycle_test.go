package ui

import "testing"

// Tabs, choices, suggestions and search matches all wrap around the same
// way: past the last is the first, before the first is the last.
func TestCycle(t *testing.T) {
	for _, c := range []struct{ i, d, n, want int }{
		{0, 1, 3, 1}, {2, 1, 3, 0}, {0, -1, 3, 2}, {1, -1, 3, 0},
		{-1, 1, 3, 0},  // nothing focused yet, forward: the first
		{-1, -1, 3, 1}, // nothing focused yet, backward: as addform always did
		{0, 1, 1, 0}, {0, -1, 1, 0},
	} {
		if got := cycle(c.i, c.d, c.n); got != c.want {
			t.Errorf("cycle(%d, %d, %d) = %d, want %d", c.i, c.d, c.n, got, c.want)
		}
	}
}
