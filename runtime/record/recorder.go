package record

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// Source is what the recorder needs of a session: *runtime.Controller
// satisfies it.
type Source interface {
	SubscribeBatches(runtime.SubscribeOptions) (<-chan []runtime.Event, func())
	Snapshot() *runtime.Snapshot
}

// Options configure a Recorder.
type Options struct {
	// Path is the file to write; it is created (truncated) with mode 0600.
	Path string
	// MaxSize rotates the file to Path.1 (keeping one) before it would
	// grow past this many bytes; 0 means no limit.
	MaxSize int64
	// Version is the mcpdeck version written in the header.
	Version string
	// Config is the session's configuration: written redacted in the
	// header, and its servers' secrets are scrubbed from every line.
	Config *config.Config
	// Secrets are further values never to write (tokens obtained at run
	// time); values shorter than 6 characters are not scrubbed.
	Secrets []string
	// Buffer bounds the events waiting to be written; when the disk falls
	// behind the oldest are dropped and a Gap says how many. Default 16384.
	Buffer int
	// SampleEvery is how often live values (pings, counters) are sampled
	// while they change; default 1s, negative turns sampling off.
	SampleEvery time.Duration
}

// Stats say what a recorder has done so far.
type Stats struct {
	Events    uint64 // event lines written
	Dropped   uint64 // events lost to a full buffer (written as gaps)
	Bytes     int64  // bytes in the current file
	Total     int64  // bytes written over every file
	Rotations int
}

// Recorder writes a session's events to a recording file. Start it before
// enabling MCP to capture the session from its first event; Close it after
// the runtime has shut down to capture the teardown.
type Recorder struct {
	opts    Options
	src     Source
	cancel  func()
	events  <-chan []runtime.Event
	dropped atomic.Uint64
	notes   chan runtime.Event
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	// Written by the recorder goroutine, read by Stats and Size.
	size, total atomic.Int64
	lines       atomic.Uint64
	lost        atomic.Uint64
	rotations   atomic.Int64
	errMu       sync.Mutex
	err         error

	// The recorder goroutine's own state.
	f          *rotFile
	scrub      *scrubber
	header     Header
	start      time.Time
	seq        uint64
	seenDrops  uint64
	batch      []byte
	era        map[string]string
	lastPub    []byte // the latest Published line, repeated after rotation
	lastLive   []byte // the latest Live line, likewise
	lastSample []byte // the latest sample's servers, to skip unchanged ones
	rotating   bool   // rotate is writing the next file's opening lines
	line       []byte // the line being encoded, reused
}

// Start creates the file, writes the header and the session's current
// snapshot, and starts recording src's events.
func Start(src Source, opts Options) (*Recorder, error) {
	if opts.Buffer <= 0 {
		opts.Buffer = 16384
	}
	if opts.SampleEvery == 0 {
		opts.SampleEvery = time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	f, err := createFile(opts.Path, opts.MaxSize)
	if err != nil {
		return nil, err
	}
	r := &Recorder{
		opts: opts, src: src, f: f, scrub: newScrubber(opts.Config, opts.Secrets),
		notes: make(chan runtime.Event, 64), stop: make(chan struct{}), done: make(chan struct{}),
		era: map[string]string{}, start: time.Now(),
	}
	r.header = Header{Kind: "header", Format: Format, Version: FormatVersion, MCPDeck: opts.Version, Started: r.start, Part: 1}
	if opts.Config != nil {
		for _, s := range opts.Config.Servers {
			r.header.Servers = append(r.header.Servers, s.Redacted())
		}
		for _, fl := range opts.Config.Files {
			r.header.Sources = append(r.header.Sources, fl.Path)
		}
	}
	// Subscribe before reading the snapshot: an event in between is then
	// recorded after a snapshot that may already include it, never lost.
	r.events, r.cancel = src.SubscribeBatches(runtime.SubscribeOptions{Buffer: opts.Buffer, Dropped: &r.dropped, HTTP: true})
	r.writeHeader()
	snap := src.Snapshot()
	r.record(runtime.Published{EventHeader: runtime.EventHeader{Time: snap.At}, Generation: snap.Generation, Enabled: snap.Enabled, Snapshot: snap})
	r.flush()
	go r.run()
	return r, nil
}

// Path is the file being written.
func (r *Recorder) Path() string { return r.opts.Path }

// Size is the current file's size in bytes (for the TUI's REC badge).
func (r *Recorder) Size() int64 { return r.size.Load() }

// Stats reports what was written so far.
func (r *Recorder) Stats() Stats {
	return Stats{Events: r.lines.Load(), Dropped: r.lost.Load(), Bytes: r.size.Load(), Total: r.total.Load(), Rotations: int(r.rotations.Load())}
}

// Err is the first write error, after which the recorder stops writing.
func (r *Recorder) Err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

// Note records an event that does not come from the runtime's bus (a
// reload plan). It never blocks: a full queue drops it, counted as a gap.
func (r *Recorder) Note(e runtime.Event) {
	select {
	case <-r.stop:
		return
	default:
	}
	select {
	case r.notes <- e:
	default:
		r.dropped.Add(1)
	}
}

// Close writes the events still queued, stops recording and closes the
// file. Close it after the runtime's Shutdown so the teardown is in the
// file. It is safe to call more than once.
func (r *Recorder) Close() error {
	r.once.Do(func() { close(r.stop) })
	<-r.done
	return r.Err()
}

// flushAfter bounds how long a written line may wait in memory: lines are
// written in batches (one system call per 64 KiB under a flood), and a
// crash loses at most this much of the session's end.
const (
	flushAfter = 20 * time.Millisecond
	flushSize  = 64 << 10
)

func (r *Recorder) run() {
	defer close(r.done)
	var tick <-chan time.Time
	if r.opts.SampleEvery > 0 {
		t := time.NewTicker(r.opts.SampleEvery)
		defer t.Stop()
		tick = t.C
	}
	flushT := time.NewTimer(flushAfter)
	flushT.Stop()
	pending := false
	later := func() {
		if len(r.batch) >= flushSize {
			r.flush()
		}
		if len(r.batch) > 0 && !pending {
			flushT.Reset(flushAfter)
			pending = true
		}
	}
	for {
		select {
		case batch, ok := <-r.events:
			if !ok {
				r.finish()
				return
			}
			for _, e := range batch {
				r.record(e)
			}
			later()
		case e := <-r.notes:
			r.record(e)
			later()
		case <-tick:
			r.sample(r.src.Snapshot(), false)
			later()
		case <-flushT.C:
			pending = false
			r.flush()
		case <-r.stop:
			flushT.Stop()
			r.finish()
			return
		}
	}
}

// finish records what is still queued and closes the file. The
// subscription hands what it holds at the cancel over as its last batch,
// and closes its channel: the events the runtime published before Close
// are all in the file, whenever its pump got to run, and Close waits for
// nothing else. Notes queued by then are written too.
func (r *Recorder) finish() {
	cancelled := make(chan struct{})
	go func() { r.cancel(); close(cancelled) }()
	for batch := range r.events {
		for _, e := range batch {
			r.record(e)
		}
	}
	<-cancelled
	for queued := true; queued; {
		select {
		case e := <-r.notes:
			r.record(e)
		default:
			queued = false
		}
	}
	r.sample(r.src.Snapshot(), false)
	r.flush()
	if err := r.f.close(); err != nil {
		r.fail(err)
	}
}

func (r *Recorder) fail(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
}

func (r *Recorder) failed() bool {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err != nil
}

// record writes one event, preceded by a gap line if events were dropped
// since the last one.
func (r *Recorder) record(e runtime.Event) {
	if d := r.dropped.Load(); d > r.seenDrops {
		r.lost.Add(d - r.seenDrops)
		r.emitEvent(Gap{EventHeader: runtime.EventHeader{Time: e.Header().Time}, Dropped: d - r.seenDrops})
		r.seenDrops = d
	}
	r.emitEvent(e)
	if p, ok := e.(runtime.Published); ok && p.Snapshot != nil {
		r.noteEras(p.Snapshot)
		// What Snapshot lays over the publication (the level in force,
		// counters, roots, ...) follows it at once: a replay positioned
		// after it shows the session as it was, not the bare publication.
		r.sample(r.src.Snapshot(), true)
	}
}

// sample writes a Live line when the live values changed (or always).
func (r *Recorder) sample(s *runtime.Snapshot, always bool) {
	if s == nil {
		return
	}
	l := liveOf(s)
	key, err := marshal(l.Servers)
	if err != nil || (!always && bytes.Equal(key, r.lastSample)) {
		return
	}
	r.lastSample = key
	r.emitEvent(l)
}

func (r *Recorder) emitEvent(e runtime.Event) {
	kind, _ := registry().nameOf(e)
	h := e.Header()
	r.seq++
	b := append(r.line[:0], `{"seq":`...)
	b = strconv.AppendUint(b, r.seq, 10)
	b = append(b, `,"mono":`...)
	b = strconv.AppendInt(b, int64(h.Time.Sub(r.start)), 10)
	b = append(b, `,"kind":`...)
	b = appendName(b, kind)
	if era := r.eraOf(e); era != "" {
		b = append(b, `,"era":`...)
		b = appendName(b, era)
	}
	b = append(b, `,"ev":`...)
	n := len(b)
	b, err := encodeEvent(b, e)
	if err != nil {
		// Unencodable (it should not happen: raw JSON is checked): keep
		// the event's header and say why the rest is missing.
		b, _ = encodeEvent(b[:n], Gap{EventHeader: h})
		b = append(b, `,"error":`...)
		b = strconv.AppendQuote(b, err.Error())
	}
	b = append(b, "}\n"...)
	r.line = b[:0] // reused for the next line; emit copies
	b = r.scrub.line(b)
	switch e.(type) {
	case runtime.Published:
		r.lastPub = append(r.lastPub[:0], b...)
	case Live:
		r.lastLive = append(r.lastLive[:0], b...)
	}
	r.lines.Add(1)
	r.emit(b)
}

func (r *Recorder) writeHeader() {
	b, err := marshal(r.header)
	if err != nil {
		r.fail(err)
		return
	}
	r.emit(append(r.scrub.line(b), '\n'))
}

// emit queues a whole line, rotating first if it would overflow the file.
func (r *Recorder) emit(b []byte) {
	if r.f.max > 0 && r.f.size+int64(len(r.batch)) > 0 && r.f.size+int64(len(r.batch))+int64(len(b)) > r.f.max && r.header.Part > 0 && !r.rotating {
		r.flush()
		r.rotate()
	}
	r.batch = append(r.batch, b...)
}

// rotate starts the next file with a header and the latest state, so each
// file replays on its own.
func (r *Recorder) rotate() {
	if r.failed() {
		return
	}
	if err := r.f.rotate(); err != nil {
		r.fail(err)
		return
	}
	r.rotations.Add(1)
	r.size.Store(0)
	r.rotating = true
	r.header.Part++
	r.writeHeader()
	if r.lastPub != nil {
		r.batch = append(r.batch, r.lastPub...)
	}
	if r.lastLive != nil {
		r.batch = append(r.batch, r.lastLive...)
	}
	r.rotating = false
}

// testHookFlush, when a test sets it, runs before each write to disk.
var testHookFlush atomic.Pointer[func()]

func (r *Recorder) flush() {
	if len(r.batch) == 0 {
		return
	}
	if hook := testHookFlush.Load(); hook != nil {
		(*hook)()
	}
	if !r.failed() {
		if err := r.f.write(r.batch); err != nil {
			r.fail(err)
		}
		r.total.Add(int64(len(r.batch)))
		r.size.Store(r.f.size)
	}
	r.batch = r.batch[:0]
}

// EventSource is a session that delivers events one at a time (a test's
// fake runtime, say); Unbatched makes a Source of it.
type EventSource interface {
	Subscribe(runtime.SubscribeOptions) (<-chan runtime.Event, func())
	Snapshot() *runtime.Snapshot
}

// Unbatched adapts an EventSource to a Source: a goroutine hands on what
// is queued as one batch. It ends when the subscription's channel closes.
func Unbatched(src EventSource) Source { return unbatched{src} }

type unbatched struct{ EventSource }

func (u unbatched) SubscribeBatches(opts runtime.SubscribeOptions) (<-chan []runtime.Event, func()) {
	in, cancel := u.Subscribe(opts)
	out := make(chan []runtime.Event)
	go func() {
		defer close(out)
		for e := range in {
			batch := []runtime.Event{e}
		more:
			for len(batch) < 1024 {
				select {
				case e, ok := <-in:
					if !ok {
						break more
					}
					batch = append(batch, e)
				default:
					break more
				}
			}
			out <- batch
		}
	}()
	return out, cancel
}
