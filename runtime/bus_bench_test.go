package runtime

import "testing"

// BenchmarkBusLossless: one publisher, one lossless subscriber reading as
// fast as it can, the way watch and the recorder's tests consume.
func BenchmarkBusLossless(b *testing.B) {
	bus := newBus()
	ch, cancel := bus.subscribe(SubscribeOptions{Lossless: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range ch {
		}
	}()
	e := Progress{Progress: 1}
	for b.Loop() {
		bus.publish(e)
	}
	cancel()
	<-done
}
