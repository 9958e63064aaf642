package runtime

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestSubscriberDropCount: a lossy subscriber that asks for its own drop
// count sees exactly the events dropped for it, not those of others.
func TestSubscriberDropCount(t *testing.T) {
	t.Parallel()
	b := newBus()
	var mine atomic.Uint64
	_, cancelMine := b.subscribe(SubscribeOptions{Buffer: 4, Dropped: &mine})
	defer cancelMine()
	other, cancelOther := b.subscribe(SubscribeOptions{Buffer: 1 << 10})
	defer cancelOther()
	// Nobody reads mine: its ring (4) plus the one event its pump holds
	// waiting to be received are kept, the rest dropped.
	for range 100 {
		b.publish(StderrLine{Line: "x"})
	}
	got := 0
	for range 100 {
		<-other
		got++
	}
	if d := mine.Load(); d < 100-5 || d > 100-4 {
		t.Errorf("mine dropped %d of 100, want 95 or 96", d)
	}
	if b.dropped.Load() != mine.Load() {
		t.Errorf("the bus counts %d drops, the subscriber %d: the other subscriber dropped nothing", b.dropped.Load(), mine.Load())
	}
}

// TestLosslessPublishNeverWaits: publishing to a lossless subscriber that
// stopped reading returns at once, whoever publishes: the events queue
// behind its channel up to the bound, and only beyond it the oldest are
// dropped and counted. What is kept arrives in order.
func TestLosslessPublishNeverWaits(t *testing.T) {
	t.Parallel()
	b := newBus()
	var dropped atomic.Uint64
	ch, cancel := b.subscribe(SubscribeOptions{Lossless: true, Buffer: 4, Dropped: &dropped})
	defer cancel()
	limit := losslessLimit(4)
	total := limit + 1000
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := range total {
			b.publish(Progress{Progress: float64(i)})
		}
	}()
	select {
	case <-published:
	case <-time.After(20 * time.Second):
		t.Fatal("publish waited for a lossless subscriber that does not read")
	}
	// Kept: the 4 in the channel, the queue's limit, and perhaps the one
	// the pump holds.
	if d := dropped.Load(); d < uint64(total-limit-5) || d > uint64(total-limit-4) {
		t.Errorf("dropped %d of %d, want %d or %d", d, total, total-limit-5, total-limit-4)
	}
	if b.dropped.Load() != dropped.Load() {
		t.Errorf("the bus counts %d drops, the subscriber %d", b.dropped.Load(), dropped.Load())
	}
	last, got := -1.0, 0
	for got < total-int(dropped.Load()) {
		e := (<-ch).(Progress)
		if e.Progress <= last {
			t.Fatalf("event %v after %v: out of order", e.Progress, last)
		}
		last = e.Progress
		got++
	}
	if last != float64(total-1) {
		t.Errorf("the last event kept is %v, want the last published, %d", last, total-1)
	}
}

// TestLosslessKeepsEverythingForAReader: a lossless subscriber that reads
// gets every event, in order, from an intake (which waits for room, as a
// server's stream does) far faster than the reader, overrunning its
// channel many times.
func TestLosslessKeepsEverythingForAReader(t *testing.T) {
	t.Parallel()
	b := newBus()
	ch, cancel := b.subscribe(SubscribeOptions{Lossless: true, Buffer: 8})
	defer cancel()
	const total = 200000
	go func() {
		for i := range total {
			b.waitRoom(context.Background())
			b.publish(Progress{Progress: float64(i)})
		}
	}()
	for i := range total {
		select {
		case e := <-ch:
			if p := e.(Progress).Progress; p != float64(i) {
				t.Fatalf("event %d is %v", i, p)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d of %d events arrived", i, total)
		}
	}
	if d := b.dropped.Load(); d != 0 {
		t.Errorf("dropped %d events for a reader that kept up", d)
	}
}

// TestWaitRoomIsTheOnlyWait: the intake's waitRoom waits while a lossless
// subscriber lags, and goes on when it catches up, when its ctx ends (the
// session is closing) or when the subscriber leaves.
func TestWaitRoomIsTheOnlyWait(t *testing.T) {
	t.Parallel()
	b := newBus()
	if !returnsWithin(func() { b.waitRoom(context.Background()) }) {
		t.Fatal("waitRoom waited with no lossless subscriber")
	}
	ch, cancel := b.subscribe(SubscribeOptions{Lossless: true, Buffer: 2})
	defer cancel()
	lossy, cancelLossy := b.subscribe(SubscribeOptions{Buffer: 1})
	defer cancelLossy()
	_ = lossy // never read: a lossy subscriber never makes anyone wait
	for i := range 10 {
		b.publish(Progress{Progress: float64(i)})
	}
	// 2 in the channel, the rest queued: the intake must wait now.
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		b.waitRoom(context.Background())
	}()
	select {
	case <-waited:
		t.Fatal("waitRoom did not wait for a lagging lossless subscriber")
	case <-time.After(50 * time.Millisecond):
	}
	read := 0
	for caughtUp := false; !caughtUp; {
		select {
		case <-ch:
			read++
		case <-waited:
			caughtUp = true
		case <-time.After(10 * time.Second):
			t.Fatal("waitRoom still waits after the subscriber caught up")
		}
	}
	if read == 0 {
		t.Fatal("waitRoom stopped waiting before anything was read")
	}

	for i := range 10 { // lagging again
		b.publish(Progress{Progress: float64(10 + i)})
	}
	ctx, stop := context.WithCancel(context.Background())
	released := make(chan struct{})
	go func() {
		defer close(released)
		b.waitRoom(ctx)
	}()
	stop()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("waitRoom ignored its ctx")
	}
	left := make(chan struct{})
	go func() {
		defer close(left)
		b.waitRoom(context.Background())
	}()
	cancel()
	select {
	case <-left:
	case <-time.After(10 * time.Second):
		t.Fatal("waitRoom still waits for a subscriber that left")
	}
	// What was in the channel when it was cancelled stays readable, in
	// order; what was queued behind it went with the subscription.
	last, n := -1.0, 0
	for e := range ch {
		p := e.(Progress).Progress
		if p <= last {
			t.Fatalf("read %v after %v", p, last)
		}
		last = p
		n++
	}
	if n > 2 {
		t.Errorf("read %d events after cancel, more than the channel holds", n)
	}
}

// returnsWithin reports whether f returns within a few seconds.
func returnsWithin(f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// TestLosslessCancelDeliversWhatWasPublished: cancelling a lossless
// subscription whose reader keeps reading delivers everything published
// before, also what had queued behind its channel (the check's observer
// and call's progress printer rely on it); a reader that stopped holds
// the cancel only briefly.
func TestLosslessCancelDeliversWhatWasPublished(t *testing.T) {
	t.Parallel()
	b := newBus()
	ch, cancel := b.subscribe(SubscribeOptions{Lossless: true, Buffer: 4})
	const total = 500
	for i := range total {
		b.publish(Progress{Progress: float64(i)})
	}
	got := make(chan int, 1)
	go func() {
		n := 0
		for e := range ch {
			if p := e.(Progress).Progress; p != float64(n) {
				t.Errorf("event %d is %v", n, p)
			}
			n++
		}
		got <- n
	}()
	cancel()
	if n := <-got; n != total {
		t.Errorf("the reader got %d of the %d events published before cancel", n, total)
	}

	_, stalled := b.subscribe(SubscribeOptions{Lossless: true, Buffer: 4})
	for i := range total {
		b.publish(Progress{Progress: float64(i)})
	}
	if !returnsWithin(stalled) {
		t.Fatal("cancel waits for a reader that stopped")
	}
}

// TestBatchedCancelHandsOverWhatIsQueued: a batched subscriber that reads
// on after cancelling gets every event published before the cancel, even
// those its pump had not handed over yet. The session recorder drains its
// subscription this way at Close; before, the pump returned at the cancel
// and what it held and what was queued were lost, so a recording missed
// its last events whenever the pump had not run in time.
func TestBatchedCancelHandsOverWhatIsQueued(t *testing.T) {
	t.Parallel()
	b := newBus()
	s, cancel := b.add(SubscribeOptions{Buffer: 4096}, true)
	const n = 3000 // more than one batch (maxBatch): the pump holds one, the rest queue
	for i := range n {
		b.publish(Progress{Progress: float64(i)})
	}
	cancelled := make(chan struct{})
	go func() { cancel(); close(cancelled) }()
	<-s.done // cancelled before anyone reads
	var got []float64
	for batch := range s.batches {
		for _, e := range batch {
			got = append(got, e.(Progress).Progress)
		}
	}
	<-cancelled
	if len(got) != n {
		t.Fatalf("read %d of the %d events published before the cancel", len(got), n)
	}
	for i, p := range got {
		if p != float64(i) {
			t.Fatalf("event %d is %v: out of order", i, p)
		}
	}
	if d := b.dropped.Load(); d != 0 {
		t.Errorf("%d events dropped", d)
	}
}
