package ui

// ring is a bounded, append-only store addressed by sequence number: the
// n-th item ever appended has seq n, and only the newest size items are
// kept. Views remember sequence numbers rather than indexes, so appending
// never shifts what they point at. The buffer grows as items arrive, up to
// size: a model holds three rings of tens of thousands of entries, which
// an idle session never fills.
type ring[T any] struct {
	buf  []T // len(buf) == next until it reaches size, then stays there
	size int
	next uint64 // seq of the next append; also the total ever appended
}

func newRing[T any](capacity int) *ring[T] {
	if capacity < 1 {
		capacity = 1
	}
	return &ring[T]{size: capacity}
}

// push appends v, overwriting the oldest item when full.
func (r *ring[T]) push(v T) {
	if len(r.buf) < r.size {
		if len(r.buf) == cap(r.buf) {
			// Doubling, but never past size (append's growth can overshoot).
			grown := make([]T, len(r.buf), min(max(2*len(r.buf), 64), r.size))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, v)
	} else {
		r.buf[r.next%uint64(len(r.buf))] = v
	}
	r.next++
}

// oldest is the seq of the oldest kept item.
func (r *ring[T]) oldest() uint64 {
	if r.next > uint64(len(r.buf)) {
		return r.next - uint64(len(r.buf))
	}
	return 0
}

// len is the number of kept items.
func (r *ring[T]) len() int { return int(r.next - r.oldest()) }

// dropped is how many items were overwritten.
func (r *ring[T]) dropped() uint64 { return r.oldest() }

// at returns the item with the given seq; it must be in [oldest, next).
func (r *ring[T]) at(seq uint64) *T { return &r.buf[seq%uint64(len(r.buf))] }
