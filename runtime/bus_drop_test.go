package runtime

import (
	"sync/atomic"
	"testing"
)

// TestSubscriberDropCount: a lossy subscriber that asks for its own drop
// count sees exactly the events dropped for it, not those of others.
func TestSubscriberDropCount(t *testing.T) {
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
