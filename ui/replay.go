package ui

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/ui/present"
)

// ErrReadOnlyReplay is what every mutating method of a Replay returns.
var ErrReadOnlyReplay = errors.New("read-only replay: nothing runs here; run mcpdeck without replay to change anything")

// Replay serves a recording to the UI as its Runtime: read only, nothing
// is started. The UI moves its position with the timeline keys; Snapshot
// is the session as it stood there. Give it as Options.Runtime and
// Options.Replay together.
type Replay struct {
	rec *record.Recording

	mu  sync.Mutex
	pos int // index of the entry shown; -1 before the first
}

// NewReplay serves rec, positioned at its end.
func NewReplay(rec *record.Recording) *Replay {
	return &Replay{rec: rec, pos: len(rec.Entries) - 1}
}

// Recording is the recording served.
func (r *Replay) Recording() *record.Recording { return r.rec }

// Pos is the index of the entry the view shows.
func (r *Replay) Pos() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos
}

func (r *Replay) setPos(i int) {
	r.mu.Lock()
	r.pos = min(max(i, -1), len(r.rec.Entries)-1)
	r.mu.Unlock()
}

// Now is the recorded time at the position, the clock ages and uptimes
// are measured against (Options.Now).
func (r *Replay) Now() time.Time {
	i := r.Pos()
	if i < 0 {
		return r.rec.Header.Started
	}
	return r.rec.Entries[i].Event.Header().Time
}

// Snapshot is the session as of the position.
func (r *Replay) Snapshot() *runtime.Snapshot {
	if s := r.rec.SnapshotAt(r.Pos()); s != nil && r.Pos() >= 0 {
		return s
	}
	// Before anything was published: the configured servers, off, and
	// those whose definition is broken invalid, with its problems, as the
	// runtime publishes them.
	s := &runtime.Snapshot{At: r.rec.Header.Started, Sources: r.rec.Header.Sources}
	for _, srv := range r.rec.Header.Servers {
		v := runtime.ServerSnapshot{Name: srv.Name, Transport: srv.Transport, Source: srv.Source, Scope: srv.Scope,
			Enabled: srv.Enabled, ConfigEnabled: srv.Enabled, Note: srv.NeedsInput}
		if srv.Invalid != nil {
			v.State, v.Note = runtime.StateInvalid, srv.Invalid.Error()
		}
		s.Servers = append(s.Servers, v)
	}
	return s
}

// Subscribe delivers nothing: the model reads the recording itself as
// the position moves. cancel closes the channel.
func (r *Replay) Subscribe(runtime.SubscribeOptions) (<-chan runtime.Event, func()) {
	ch := make(chan runtime.Event)
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

// SetEnabled is refused: a replay runs nothing.
func (r *Replay) SetEnabled(context.Context, bool) error { return ErrReadOnlyReplay }

// SetServerEnabled is refused.
func (r *Replay) SetServerEnabled(context.Context, string, bool) error { return ErrReadOnlyReplay }

// Reconnect is refused.
func (r *Replay) Reconnect(context.Context, string) error { return ErrReadOnlyReplay }

// Reload is refused.
func (r *Replay) Reload(context.Context, *config.Config) (runtime.Plan, error) {
	return runtime.Plan{}, ErrReadOnlyReplay
}

// Call is refused.
func (r *Replay) Call(context.Context, runtime.CallRequest) (*runtime.Result, error) {
	return nil, ErrReadOnlyReplay
}

// Configure is refused: a replay runs nothing.
func (r *Replay) Configure(context.Context, *config.Config) (runtime.Plan, error) {
	return runtime.Plan{}, ErrReadOnlyReplay
}

// History is the calls finished by the position, rebuilt from the
// recording (record.Recording.CallsAt): the Requests tab lists them with
// their outcomes as the session's did.
func (r *Replay) History() ([]runtime.CallRecord, uint64) {
	return r.rec.CallsAt(r.Pos()), 0
}

// ReadResource is refused: a replay asks no server.
func (r *Replay) ReadResource(context.Context, string, string) (json.RawMessage, error) {
	return nil, ErrReadOnlyReplay
}

// SubscribeResource is refused.
func (r *Replay) SubscribeResource(context.Context, string, string) error { return ErrReadOnlyReplay }

// UnsubscribeResource is refused.
func (r *Replay) UnsubscribeResource(context.Context, string, string) error { return ErrReadOnlyReplay }

// GetPrompt is refused.
func (r *Replay) GetPrompt(context.Context, string, string, map[string]string) (json.RawMessage, error) {
	return nil, ErrReadOnlyReplay
}

// Complete is refused.
func (r *Replay) Complete(context.Context, runtime.CompleteRequest) (*runtime.Completion, error) {
	return nil, ErrReadOnlyReplay
}

// SetLogLevel is refused.
func (r *Replay) SetLogLevel(context.Context, string, string) error { return ErrReadOnlyReplay }

// SetRoots is refused.
func (r *Replay) SetRoots(context.Context, string, []string) error { return ErrReadOnlyReplay }

// Cancel finds nothing to cancel.
func (r *Replay) Cancel(string, uint64, string) bool { return false }

// SetElicitor does nothing: no server can ask anything.
func (r *Replay) SetElicitor(runtime.Elicitor) {}

// SetSampler does nothing either.
func (r *Replay) SetSampler(runtime.Sampler) {}

// Shutdown has nothing to stop.
func (r *Replay) Shutdown(context.Context) error { return nil }

// replayState is the model's side of a replay: how far the stores have
// been filled. Only the model's Update touches it.
type replayState struct {
	src     *Replay
	applied int // entries [0, applied) are in the stores
}

// replayTo shows the session as of entry pos: stepping forward applies
// the entries in between; stepping back rebuilds the stores from the
// start, since they only ever append.
func (m *Model) replayTo(pos int) {
	rs := m.replay
	entries := rs.src.rec.Entries
	pos = min(max(pos, -1), len(entries)-1)
	if pos+1 < rs.applied {
		m.clearStores()
		rs.applied = 0
	}
	rs.src.setPos(pos)
	batch := make([]runtime.Event, 0, pos+1-rs.applied)
	for _, e := range entries[rs.applied : pos+1] {
		batch = append(batch, e.Event)
	}
	rs.applied = pos + 1
	m.applyEvents(eventsMsg{events: batch, snap: rs.src.Snapshot()})
	// The history as of the position, at once: stepping back must drop
	// the calls that had not finished yet, which no event says.
	m.c.history, m.c.historyDropped = rs.src.History()
	m.historyStale = false
}

// clearStores empties every store before a replay rebuilds them.
func (m *Model) clearStores() {
	c := m.c
	c.notes.clear()
	c.logs.clear()
	c.traffic.clear()
	clear(c.reqs)
	for _, t := range m.tabs {
		t.FilterChanged() // rescans, from nothing
	}
}

// clear empties the ring; sequence numbers start again at 0.
func (r *ring[T]) clear() {
	clear(r.buf)
	r.buf = r.buf[:0]
	r.next = 0
}

// initRecordAndReplay is newModel's hook for this file and record.go: it
// adopts a recorder already running, and positions a replay at its
// recording's end, the session as it was left.
func (m *Model) initRecordAndReplay() {
	if ro := m.opts.Recording; ro != nil {
		m.rec.active = ro.Active
	}
	if m.opts.Replay == nil {
		return
	}
	m.replay = &replayState{src: m.opts.Replay}
	m.c.replay = true
	m.replayTo(m.opts.Replay.Pos())
	m.setStatus(statusInfo, "replaying "+present.Count(len(m.opts.Replay.rec.Entries), "event", "events")+
		": , . step  < > 10 s  { } milestones  ^ $ ends")
	if p := m.opts.Replay.rec.Problems(); p != "" {
		m.setStatus(statusWarn, "replaying what could be read: "+present.Line(p))
	}
}
