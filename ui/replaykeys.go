package ui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// replayJump is how far < and > move through recorded time.
const replayJump = 10 * time.Second

// replayKey moves the replay's position: , and . one event, < and > ten
// seconds, { and } to the previous or next milestone (a state change, a
// request starting or ending, a reload, a gap), ^ and $ to either end.
func (m *Model) replayKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if m.replay == nil {
		return nil, false
	}
	k := m.c.keys
	rec := m.replay.src.rec
	pos := m.replay.src.Pos()
	next := pos
	switch {
	case key.Matches(msg, k.ReplayBack):
		next = pos - 1
	case key.Matches(msg, k.ReplayForward):
		next = pos + 1
	case key.Matches(msg, k.ReplayJumpBack):
		next = rec.IndexAt(m.replayOffset(pos) - replayJump)
	case key.Matches(msg, k.ReplayJumpForward):
		next = max(rec.IndexAt(m.replayOffset(pos)+replayJump), pos+1)
	case key.Matches(msg, k.ReplayPrevMark):
		next = milestone(rec, pos, -1)
	case key.Matches(msg, k.ReplayNextMark):
		next = milestone(rec, pos, 1)
	case key.Matches(msg, k.ReplayStart):
		next = 0
	case key.Matches(msg, k.ReplayEnd):
		next = len(rec.Entries) - 1
	default:
		return nil, false
	}
	if next != pos {
		m.replayTo(next)
	}
	return nil, true
}

// replayOffset is entry i's offset from the recording's start.
func (m *Model) replayOffset(i int) time.Duration {
	if i < 0 {
		return 0
	}
	return m.replay.src.rec.Entries[i].Mono
}

// milestone finds the nearest entry before (dir -1) or after (dir 1) pos
// worth stopping at, or the end in that direction.
func milestone(rec *record.Recording, pos, dir int) int {
	for i := pos + dir; i >= 0 && i < len(rec.Entries); i += dir {
		switch rec.Entries[i].Event.(type) {
		case runtime.StateChanged, runtime.RequestStarted, runtime.RequestFinished, runtime.RequestCancelled,
			record.ReloadPlanned, record.Gap:
			return i
		}
	}
	if dir < 0 {
		return 0
	}
	return len(rec.Entries) - 1
}

// replayBadge is the header's position: "▶ REPLAY 0:12.345 / 1:02.000 ·
// 123/4567 Published".
func (m *Model) replayBadge() string {
	if m.replay == nil {
		return ""
	}
	rec := m.replay.src.rec
	pos := m.replay.src.Pos()
	total := time.Duration(0)
	if n := len(rec.Entries); n > 0 {
		total = rec.Entries[n-1].Mono
	}
	kind := ""
	if pos >= 0 {
		kind = " " + rec.Entries[pos].Kind
	}
	st := m.c.st
	return st.Accent.Render("▶ REPLAY") + st.Text.Render(fmt.Sprintf(" %s / %s · %d/%d%s",
		clockOffset(m.replayOffset(pos)), clockOffset(total), pos+1, len(rec.Entries), kind))
}

// clockOffset renders an offset as m:ss.mmm.
func clockOffset(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%d:%06.3f", int(d/time.Minute), (d % time.Minute).Seconds())
}
