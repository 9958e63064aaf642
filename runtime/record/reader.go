package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"mcpdeck/runtime"
)

// Reader decodes a recording line by line. A file cut short by a crash
// reads as far as its last complete line; Truncated then says so.
type Reader struct {
	Header Header
	// Truncated is set at the end when the last line was incomplete (the
	// writer was killed mid-line); that line is skipped.
	Truncated bool
	// Undecodable counts lines of a known kind that did not decode; they
	// are returned as Unknown.
	Undecodable int
	// Skipped counts lines that were not read at all: not JSON, or nested
	// deeper than the decoder goes. Skips holds the first few, with why.
	Skipped int
	Skips   []Skip

	br   *bufio.Reader
	line int
}

// Skip is one line of a recording that could not be read.
type Skip struct {
	Line int    // 1-based, the header being line 1
	Why  string // "not JSON", "nested too deeply"
}

// String is "line 12 (not JSON)".
func (s Skip) String() string { return fmt.Sprintf("line %d (%s)", s.Line, s.Why) }

// maxSkips bounds Reader.Skips: enough to find the lines in a file.
const maxSkips = 5

// skip records an unreadable line.
func (r *Reader) skip(err error) {
	r.Skipped++
	if len(r.Skips) < maxSkips {
		why := "not JSON"
		if strings.Contains(err.Error(), "max depth") {
			why = "nested too deeply"
		}
		r.Skips = append(r.Skips, Skip{Line: r.line, Why: why})
	}
}

// envelope is an event line as read.
type envelope struct {
	Seq   uint64         `json:"seq"`
	Mono  int64          `json:"mono"`
	Kind  string         `json:"kind"`
	Era   string         `json:"era"`
	Ev    jsontext.Value `json:"ev"`
	Error string         `json:"error"`
}

// NewReader reads the header and checks the format version: a file of a
// newer major version is refused with ErrNewerFormat.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	first, complete, err := rd.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading the recording header: %w", err)
	}
	if len(first) == 0 || !complete {
		return nil, fmt.Errorf("%w: the file is empty or its first line is incomplete", ErrNotRecording)
	}
	var probe struct {
		Kind    string `json:"kind"`
		Format  string `json:"format"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(first, &probe); err != nil || probe.Format != Format {
		return nil, fmt.Errorf("%w: the first line is not a recording header (want \"format\": %q)", ErrNotRecording, Format)
	}
	if err := checkVersion(probe.Version); err != nil {
		return nil, err
	}
	if err := unmarshal(first, &rd.Header); err != nil {
		return nil, fmt.Errorf("%w: decoding the header: %v", ErrNotRecording, err)
	}
	return rd, nil
}

// next returns the next line without its newline, and whether it was
// complete (ended by a newline).
func (r *Reader) next() ([]byte, bool, error) {
	b, err := r.br.ReadBytes('\n')
	if len(b) > 0 {
		r.line++
	}
	if err != nil {
		return b, false, err
	}
	return b[:len(b)-1], true, nil
}

// Next returns the next event; io.EOF at the end.
func (r *Reader) Next() (Entry, error) {
	for {
		b, complete, err := r.next()
		if !complete {
			if len(bytes.TrimSpace(b)) > 0 {
				r.Truncated = true
			}
			if err == nil || errors.Is(err, io.EOF) {
				return Entry{}, io.EOF
			}
			return Entry{}, fmt.Errorf("reading the recording at line %d: %w", r.line, err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var env envelope
		if err := json.Unmarshal(b, &env); err != nil {
			r.skip(err)
			continue
		}
		if env.Kind == "header" {
			continue // a second part's header, if files were joined
		}
		ev, derr := decodeEvent(env.Kind, env.Ev)
		if derr != nil {
			r.Undecodable++
		}
		return Entry{Seq: env.Seq, Mono: time.Duration(env.Mono), Kind: env.Kind, Era: env.Era, Event: ev}, nil
	}
}

// Recording is a whole recording in memory, with what replay needs to
// show the state as of any entry.
type Recording struct {
	Header    Header
	Entries   []Entry
	Truncated bool
	// Skipped, Skips and Undecodable are the Reader's: lines not read at
	// all, and lines of a known kind read as Unknown.
	Skipped     int
	Skips       []Skip
	Undecodable int
	// pub[i] is the index of the latest Published at or before entry i
	// (-1 if none); live[i] likewise for Live samples.
	pub, live []int
	// reached[i] is the largest offset among entries 0..i: events from
	// different goroutines are written in the order published, which
	// their own times may not quite follow.
	reached []time.Duration
	// calls is the call history rebuilt from the entries, in the order
	// the calls finished (calls.go).
	calls []placedCall
	// requests are the requests and the entries they were in flight over,
	// in the order they started (outstanding.go).
	requests []*inFlight
}

// Read reads a whole recording.
func Read(r io.Reader) (*Recording, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Header: rd.Header}
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		rec.Entries = append(rec.Entries, e)
	}
	rec.Truncated = rd.Truncated
	rec.Skipped, rec.Skips, rec.Undecodable = rd.Skipped, rd.Skips, rd.Undecodable
	rec.index()
	return rec, nil
}

// Problems says, in one sentence, what of the recording could not be
// read, "" when everything could: the lines skipped, the events read as
// unknown, and a last line cut short.
func (rec *Recording) Problems() string {
	var parts []string
	if rec.Skipped > 0 {
		where := make([]string, len(rec.Skips))
		for i, s := range rec.Skips {
			where[i] = s.String()
		}
		more := ""
		if rec.Skipped > len(rec.Skips) {
			more = ", …"
		}
		parts = append(parts, fmt.Sprintf("%d %s skipped: %s%s", rec.Skipped, plural(rec.Skipped, "line", "lines"), strings.Join(where, ", "), more))
	}
	if rec.Undecodable > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of a known kind did not decode and show as unknown", rec.Undecodable, plural(rec.Undecodable, "event", "events")))
	}
	if rec.Truncated {
		parts = append(parts, "the last line is incomplete (the recording process was killed)")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ReadFile reads the recording at path.
func ReadFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the recording: %w", err)
	}
	defer f.Close()
	rec, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return rec, nil
}

func (rec *Recording) index() {
	rec.pub = make([]int, len(rec.Entries))
	rec.live = make([]int, len(rec.Entries))
	rec.reached = make([]time.Duration, len(rec.Entries))
	p, l := -1, -1
	var reached time.Duration
	for i, e := range rec.Entries {
		reached = max(reached, e.Mono)
		rec.reached[i] = reached
		switch ev := e.Event.(type) {
		case runtime.Published:
			if ev.Snapshot != nil {
				p = i
			}
		case Live:
			l = i
		}
		rec.pub[i], rec.live[i] = p, l
	}
	rec.indexCalls()
	rec.indexRequests()
}

// SnapshotAt is the session as it stood after entry i: the latest
// publication, with the live sample taken after it laid over. nil before
// the first publication. The result is a copy the caller may keep.
func (rec *Recording) SnapshotAt(i int) *runtime.Snapshot {
	if len(rec.Entries) == 0 {
		return nil
	}
	i = min(max(i, 0), len(rec.Entries)-1)
	p := rec.pub[i]
	if p < 0 {
		return nil
	}
	pub := rec.Entries[p].Event.(runtime.Published).Snapshot
	snap := *pub
	snap.Servers = append([]runtime.ServerSnapshot(nil), pub.Servers...)
	if l := rec.live[i]; l > p {
		rec.Entries[l].Event.(Live).apply(&snap)
	}
	// The requests in flight are those the events say, not a sample's.
	out := rec.OutstandingAt(i)
	for k := range snap.Servers {
		snap.Servers[k].Outstanding = out[snap.Servers[k].Name]
	}
	snap.At = rec.Entries[i].Event.Header().Time
	return &snap
}

// Start is the wall time of the recording's start.
func (rec *Recording) Start() time.Time { return rec.Header.Started }

// IndexAt is the last entry by which offset d from the start had been
// reached (-1 if none), for jumping through time.
func (rec *Recording) IndexAt(d time.Duration) int {
	lo, hi := 0, len(rec.Entries) // first entry after d
	for lo < hi {
		m := (lo + hi) / 2
		if rec.reached[m] <= d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}
