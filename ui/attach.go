package ui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
)

// forwardBatch bounds how many events one message carries, so a flood is
// applied in slices and keys still get through between them.
const forwardBatch = 1024

// subscribeBuffer is the UI's lossy event buffer; when the UI falls behind
// the runtime drops the oldest events and counts them in the header.
const subscribeBuffer = 16384

// Attach connects a running program to rt: a forwarding goroutine moves
// runtime events into the program (batched, with the new snapshot read
// off the event loop), and the program's elicitation modal and sampling
// dialog become rt's elicitor and sampler. send is program.Send (teatest:
// TestModel.Send). detach undoes it, answers any elicitation still
// waiting with cancel (and sampling with a decline), and returns once the
// goroutine has ended; it is safe to call more than once.
func Attach(rt Runtime, send func(tea.Msg)) (detach func()) {
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Buffer: subscribeBuffer})
	el := &elicitor{send: send, done: make(chan struct{})}
	rt.SetElicitor(el)
	rt.SetSampler(&sampler{send: send, done: el.done})
	done := make(chan struct{})
	go forward(rt, events, send, done)
	var once sync.Once
	return func() {
		once.Do(func() {
			rt.SetElicitor(runtime.DeclineElicitor{})
			rt.SetSampler(runtime.DeclineSampler{})
			close(el.done)
			cancel()
			<-done
		})
	}
}

// clockEvery is how often ages and uptimes are redrawn.
const clockEvery = time.Second

// forward is the forwarding goroutine: it drains whatever is queued into
// one batch so a burst costs one program message, not thousands. It also
// ticks the clock, so no timer outlives the program.
//
// The snapshot is read here, off the program's goroutine: at once when a
// batch holds a publication, and on the next tick when a batch held an
// event that changes the snapshot's live part (a health check's latency,
// counters, outstanding requests, stderr). So the PING column and the
// counters move at least once a second while anything happens, and cost
// nothing while nothing does.
func forward(rt Runtime, events <-chan runtime.Event, send func(tea.Msg), done chan<- struct{}) {
	defer close(done)
	clock := time.NewTicker(clockEvery)
	defer clock.Stop()
	dirty := false
	for {
		var e runtime.Event
		select {
		case <-clock.C:
			msg := clockMsg{}
			if dirty {
				msg.snap, dirty = rt.Snapshot(), false
			}
			send(msg)
			continue
		case ev, ok := <-events:
			if !ok {
				return
			}
			e = ev
		}
		batch := []runtime.Event{e}
		published := announces(e)
	drain:
		for len(batch) < forwardBatch {
			select {
			case e, ok := <-events:
				if !ok {
					break drain
				}
				batch = append(batch, e)
				published = published || announces(e)
			default:
				break drain
			}
		}
		msg := eventsMsg{events: batch}
		if published {
			msg.snap, dirty = rt.Snapshot(), false
		} else {
			dirty = dirty || changesSnapshot(batch)
		}
		send(msg)
	}
}

// announces reports whether e comes with a new snapshot to read at once:
// a publication, or a choice a person just made (a subscription, a log
// level, roots) that the snapshot shows and the screen should too.
func announces(e runtime.Event) bool {
	switch e.(type) {
	case runtime.Published, runtime.SubscriptionChanged, runtime.LogLevelSet, runtime.RootsChanged:
		return true
	}
	return false
}

// changesSnapshot reports whether any event of batch changes what
// Controller.Snapshot returns. Traffic frames, the server's and an app
// bridge's, only feed the Traffic tab.
func changesSnapshot(batch []runtime.Event) bool {
	for _, e := range batch {
		switch e.(type) {
		case runtime.TrafficFrame, runtime.AppMessage:
		default:
			return true
		}
	}
	return false
}

// programLink hands messages from another goroutine (the auth manager's,
// the app host's) to a running program, once one is attached; before and
// after, they are dropped. LoginURLs and AppNotices are one each.
type programLink struct {
	mu   sync.Mutex
	send func(tea.Msg)
}

// Attach makes Report deliver to send (program.Send) until detach.
func (p *programLink) Attach(send func(tea.Msg)) (detach func()) {
	p.mu.Lock()
	p.send = send
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.send = nil
		p.mu.Unlock()
	}
}

// deliver sends msg to the attached program, if any.
func (p *programLink) deliver(msg tea.Msg) {
	p.mu.Lock()
	send := p.send
	p.mu.Unlock()
	if send != nil {
		send(msg)
	}
}

// elicitor hands a server's elicitation to the program and waits for the
// person's answer, the server's cancellation or the UI's exit.
type elicitor struct {
	send func(tea.Msg)
	seq  atomic.Uint64
	done chan struct{} // closed by detach: nobody will answer any more
}

// Elicit implements runtime.Elicitor.
func (e *elicitor) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	id := e.seq.Add(1)
	return askPerson(ctx, e.send, e.done, func(reply chan<- runtime.ElicitResponse) tea.Msg { return elicitMsg{id: id, req: req, reply: reply} },
		elicitGoneMsg{id: id}, runtime.ElicitResponse{Action: "cancel"})
}

// closeWith closes a question's modal and delivers the person's answer
// in a command; reply is askPerson's, buffered, so the send never blocks.
func closeWith[R any](reply chan<- R, resp R) (modal, tea.Cmd) {
	return nil, func() tea.Msg {
		reply <- resp
		return nil
	}
}

// askPerson hands a server's question to the program (the message ask
// builds around the reply channel) and waits for the person's answer, the
// server's cancellation (gone closes the dialog) or the UI's exit; closed
// is the answer when nobody will give one.
func askPerson[R any](ctx context.Context, send func(tea.Msg), done <-chan struct{}, ask func(chan<- R) tea.Msg, gone tea.Msg, closed R) (R, error) {
	select {
	case <-done:
		return closed, nil
	default:
	}
	reply := make(chan R, 1)
	send(ask(reply))
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		send(gone)
		return closed, ctx.Err()
	case <-done:
		return closed, nil
	}
}
