package config

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync/atomic"
)

// Scrubber replaces secret values in free text with RedactedValue: a
// server's configured secrets (see Server.Secrets) plus every value added
// with AddSecret. Secrets shorter than 6 characters are not scrubbed from
// free text: they would match too much of it. A nil *Scrubber scrubs the
// AddSecret values only. A Scrubber is safe for concurrent use.
type Scrubber struct {
	own    []string                 // the server's secrets
	merged atomic.Pointer[scrubSet] // own plus the registry, longest first
}

// scrubSet is own plus the registry at one registry generation.
type scrubSet struct {
	gen     uint64
	secrets []string // longest first, so a secret containing another goes whole
}

// Scrubber returns the scrubber of s's secrets.
func (s Server) Scrubber() *Scrubber {
	sc := &Scrubber{}
	for _, v := range s.Secrets() {
		if len(v) >= minScrubLen {
			sc.own = append(sc.own, v)
		}
	}
	return sc
}

// list returns the secrets to scrub, merging again when AddSecret added
// some since the last call.
func (sc *Scrubber) list() []string {
	added, gen := addedSecrets()
	if sc == nil {
		return longestFirst(slices.Clone(added))
	}
	if m := sc.merged.Load(); m != nil && m.gen == gen {
		return m.secrets
	}
	all := longestFirst(slices.Compact(slices.Sorted(slices.Values(withEscaped(append(slices.Clone(sc.own), added...))))))
	sc.merged.Store(&scrubSet{gen: gen, secrets: all})
	return all
}

// withEscaped adds to secrets how each is written inside a JSON string
// when that differs from the value itself (a quote, a backslash, a control
// character, or <, > and & as Go's encoder escapes them): a server that
// reflects a secret in JSON sends it escaped.
func withEscaped(secrets []string) []string {
	out := secrets
	for _, v := range secrets {
		for _, html := range []bool{false, true} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			if enc.Encode(v) != nil {
				continue
			}
			if e := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(b.String(), "\n"), `"`), `"`); e != v {
				out = append(out, e)
			}
		}
	}
	return out
}

func longestFirst(ss []string) []string {
	slices.SortStableFunc(ss, func(a, b string) int { return len(b) - len(a) })
	return ss
}

// Empty reports whether there is nothing to scrub.
func (sc *Scrubber) Empty() bool { return len(sc.list()) == 0 }

// String scrubs v.
func (sc *Scrubber) String(v string) string {
	for _, sec := range sc.list() {
		if strings.Contains(v, sec) {
			v = strings.ReplaceAll(v, sec, RedactedValue)
		}
	}
	return v
}

// Bytes scrubs b. Scrubbing JSON keeps it valid: RedactedValue holds no
// quote or backslash.
func (sc *Scrubber) Bytes(b []byte) []byte {
	for _, sec := range sc.list() {
		if bytes.Contains(b, []byte(sec)) {
			b = bytes.ReplaceAll(b, []byte(sec), []byte(RedactedValue))
		}
	}
	return b
}

// Reader returns r with every secret scrubbed as it is read: the way text
// from a server (a process's stdout, an HTTP response body) enters
// mcpdeck, so nothing reads it unscrubbed. A secret split across two reads
// is still found: the end of what was read is held back while it could be
// the start of a secret (at most the longest secret's length), and given
// out once the next read, or the end of r, settles it. A frame or an SSE
// event ends in a newline, which starts no secret, so nothing complete is
// ever held. With no secrets to scrub, reads go straight through.
func (sc *Scrubber) Reader(r io.Reader) io.Reader { return &scrubReader{r: r, sc: sc} }

// scrubReader is Scrubber.Reader. Like any io.Reader it is used by one
// goroutine at a time.
type scrubReader struct {
	r   io.Reader
	sc  *Scrubber
	in  []byte // read but held back: it may be the start of a secret
	out []byte // scrubbed, not yet returned
	buf []byte // reused read buffer
	err error  // r's error, returned once in and out are given out
}

func (s *scrubReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		secrets := s.sc.list()
		switch {
		case len(s.in) == 0 && s.err != nil:
			return 0, s.err
		case len(s.in) == 0 && len(secrets) == 0:
			return s.r.Read(p)
		case s.err != nil:
			// The end: what was held back cannot grow into a secret now.
			s.out, s.in = s.sc.Bytes(s.in), nil
			continue
		}
		if cap(s.buf) < len(p) {
			s.buf = make([]byte, max(len(p), 512))
		}
		n, err := s.r.Read(s.buf[:max(len(p), 512)])
		s.err = err
		if n == 0 {
			continue
		}
		all := s.sc.Bytes(append(s.in, s.buf[:n]...))
		keep := holdBack(all, secrets)
		s.out = all[:len(all)-keep]
		s.in = append([]byte(nil), all[len(all)-keep:]...)
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// holdBack is the length of the longest end of b that is the start (and
// not the whole) of one of secrets.
func holdBack(b []byte, secrets []string) int {
	keep := 0
	for _, sec := range secrets {
		for i := max(0, len(b)-len(sec)+1); i < len(b)-keep; i++ {
			if b[i] == sec[0] && sec[:len(b)-i] == string(b[i:]) {
				keep = len(b) - i
				break
			}
		}
	}
	return keep
}
