package ui

// ring is a bounded, append-only store addressed by sequence number: the
// n-th item ever appended has seq n, and only the newest cap items are
// kept. Views remember sequence numbers rather than indexes, so appending
// never shifts what they point at.
type ring[T any] struct {
	buf  []T
	next uint64 // seq of the next append; also the total ever appended
}

func newRing[T any](capacity int) *ring[T] {
	if capacity < 1 {
		capacity = 1
	}
	return &ring[T]{buf: make([]T, capacity)}
}

// push appends v, overwriting the oldest item when full.
func (r *ring[T]) push(v T) {
	r.buf[r.next%uint64(len(r.buf))] = v
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
