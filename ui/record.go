package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime/record"
)

// Recording lets the record key write the session to a file. The CLI
// fills it in; without it the key says recording is unavailable.
type Recording struct {
	// Options are the recorder's settings (version, configuration for the
	// header and scrubbing, size limit); Path is chosen per recording.
	Options record.Options
	// Dir receives the key's recordings, one timestamped file each;
	// default $XDG_STATE_HOME/mcpdeck/recordings.
	Dir string
	// Active is a recorder already running (--record FILE); the key
	// stops it like one of its own.
	Active *record.Recorder
	// Changed, if set, learns the recorder now running (nil once
	// stopped), so whoever notes reloads notes them in the right file.
	Changed func(*record.Recorder)
}

// ErrNoRecording: the record key was pressed but Options.Recording is nil.
var ErrNoRecording = errors.New("recording is not available in this session")

// recState is the record key's state: the running recorder, if any.
// Only the model's Update touches it.
type recState struct {
	active *record.Recorder
	busy   bool // a start or stop is in flight
}

type recordStartedMsg struct {
	r   *record.Recorder
	err error
}

type recordStoppedMsg struct {
	path  string
	stats record.Stats
	err   error
}

// recordingKeys is the record key's binding, added to the help by the
// key map (keys.KeyMap.Record).
func (m *Model) recordingKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if !key.Matches(msg, m.c.keys.Record) {
		return nil, false
	}
	if m.replay != nil {
		m.setStatus(statusWarn, "this is a replay: it is recorded already")
		return nil, true
	}
	ro := m.opts.Recording
	switch {
	case ro == nil:
		m.setStatus(statusWarn, ErrNoRecording.Error()+": start mcpdeck with --record FILE instead")
		return nil, true
	case m.rec.busy:
		return nil, true
	}
	m.rec.busy = true
	if r := m.rec.active; r != nil {
		m.setStatus(statusInfo, "stopping the recording…")
		return func() tea.Msg {
			err := r.Close()
			return recordStoppedMsg{path: r.Path(), stats: r.Stats(), err: err}
		}, true
	}
	opts, dir, src := ro.Options, ro.Dir, m.rt
	m.setStatus(statusInfo, "starting to record…")
	return func() tea.Msg {
		if dir == "" {
			state, err := config.DefaultStateDir()
			if err != nil {
				return recordStartedMsg{err: fmt.Errorf("finding the state directory: %w", err)}
			}
			dir = filepath.Join(state, "recordings")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return recordStartedMsg{err: fmt.Errorf("creating %s: %w", dir, err)}
		}
		opts.Path = filepath.Join(dir, time.Now().Format("20060102-150405.000")+".jsonl")
		source, ok := src.(record.Source)
		if !ok {
			source = record.Unbatched(src)
		}
		r, err := record.Start(source, opts)
		return recordStartedMsg{r: r, err: err}
	}, true
}

// handleRecord takes the results of starting and stopping.
func (m *Model) handleRecord(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case recordStartedMsg:
		m.rec.busy = false
		if msg.err != nil {
			m.setStatus(statusError, "recording failed: "+errText(msg.err))
			return nil, true
		}
		m.rec.active = msg.r
		m.recordChanged(msg.r)
		m.setStatus(statusInfo, "recording to "+msg.r.Path()+" (press "+m.c.keys.Record.Help().Key+" to stop)")
	case savedMsg:
		m.handleSaved(msg)
	case chooseSaveMsg:
		m.chooseSave(msg)
	case saveChosenMsg:
		return msg.save, true
	case recordStoppedMsg:
		m.rec.busy = false
		m.rec.active = nil
		m.recordChanged(nil)
		switch {
		case msg.err != nil:
			m.setStatus(statusError, fmt.Sprintf("the recording %s is incomplete: %s", msg.path, errText(msg.err)))
		case msg.stats.Dropped > 0:
			m.setStatus(statusWarn, fmt.Sprintf("saved %s (%s); %d events were lost to a slow disk", msg.path, byteSize(msg.stats.Total), msg.stats.Dropped))
		default:
			m.setStatus(statusInfo, fmt.Sprintf("saved %s (%s): mcpdeck replay %s", msg.path, byteSize(msg.stats.Total), msg.path))
		}
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) recordChanged(r *record.Recorder) {
	if ro := m.opts.Recording; ro != nil && ro.Changed != nil {
		ro.Changed(r)
	}
}

// recordBadge is the header's "● REC 1.2 MB" while recording.
func (m *Model) recordBadge() string {
	r := m.rec.active
	if r == nil {
		return ""
	}
	return m.c.st.Error.Render("● REC") + m.c.st.Dim.Render(" "+byteSize(r.Size()))
}

// byteSize is a size for people: 812 B, 14.2 kB, 3.1 MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	}
}
