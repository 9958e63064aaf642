package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"sync"
	"unicode/utf8"
)

// drain reads the server's stderr line by line until EOF (every writer gone)
// or until Stop closes the read end. It holds at most MaxLineBytes of one
// line plus the bufio buffer, however the server writes.
func (p *Process) drain() {
	defer close(p.drainDone)
	// Small: every idle server keeps these for its lifetime.
	br := bufio.NewReaderSize(p.stderr, 1024)
	var line []byte
	dropped := 0
	emit := func() {
		s := string(bytes.TrimSuffix(line, []byte{'\r'}))
		if dropped > 0 {
			s = cutUTF8(s, len(s)) + fmt.Sprintf("… [line truncated: %d more bytes dropped]", dropped)
		}
		if p.spec.Scrub != nil {
			s = p.spec.Scrub(s)
		}
		p.tail.add(s)
		if p.spec.OnStderr != nil {
			p.spec.OnStderr(s)
		}
		line, dropped = line[:0], 0
	}
	for {
		chunk, err := br.ReadSlice('\n')
		complete := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if room := MaxLineBytes - len(line); room >= len(chunk) {
			line = append(line, chunk...)
		} else {
			line = append(line, chunk[:room]...)
			dropped += len(chunk) - room
		}
		if complete {
			emit()
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			// A last line without a newline is still a line.
			if len(line) > 0 || dropped > 0 {
				emit()
			}
			return
		}
	}
}

// cutUTF8 returns s cut to at most n bytes without splitting a rune, so a
// truncated line stays valid text for the terminal.
func cutUTF8(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	// Drop a trailing partial rune left by the cut (or by the server).
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				s = s[:i]
			}
			break
		}
	}
	return s
}

// tail is a ring of the most recent stderr lines, at most max. It grows as
// lines come, so a quiet server holds none of its slots. The drain
// goroutine writes it while any caller may read it, hence the mutex.
type tail struct {
	mu   sync.Mutex
	max  int
	ring []string
	next int // index of the slot the next line goes to, once full
	full bool
}

func newTail(n int) *tail { return &tail{max: n} }

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		t.ring = append(t.ring, s)
		t.full = len(t.ring) == t.max
		return
	}
	t.ring[t.next] = s
	t.next = (t.next + 1) % len(t.ring)
}

// lines returns a copy, oldest first.
func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		return append([]string(nil), t.ring...)
	}
	out := make([]string, 0, len(t.ring))
	out = append(out, t.ring[t.next:]...)
	return append(out, t.ring[:t.next]...)
}
