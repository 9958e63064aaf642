package record

import (
	"bytes"
	stdjson "encoding/json"
	"sort"
	"strconv"
	"strings"

	"mcpdeck/config"
)

// scrubber is the recorder's last line of defence: the configured
// servers' own scrubbers (config.Server.Scrubber) run over every line, and
// so do the JSON-escaped forms of secrets that JSON writes differently
// (a quote, a backslash, a control character), which a plain text match
// would miss. Extra holds secrets the configuration does not know (a
// token obtained by logging in).
type scrubber struct {
	servers []*config.Scrubber
	escaped [][]byte // longest first
	// finders locate every secret and escaped form quickly, so the
	// scrubbers run only on the rare line that holds one.
	finders []finder
}

// finder looks for one secret by its rarest byte, which IndexByte finds
// fast; searching by the first byte, as bytes.Index does, stops at every
// "n" or "e" of a JSON line.
type finder struct {
	s      []byte
	anchor int // index of the rarest byte in s
}

func newFinder(s []byte) finder {
	f := finder{s: s}
	for i := range s {
		if commonness(s[i]) < commonness(s[f.anchor]) {
			f.anchor = i
		}
	}
	return f
}

// commonness ranks bytes by how often they appear in JSON-RPC traffic:
// lowercase letters (in English frequency order), JSON punctuation and
// digits most; capitals and other punctuation least.
func commonness(c byte) int {
	const byFrequency = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	switch {
	case c >= 'a' && c <= 'z':
		return 10 + strings.IndexByte(byFrequency, c)
	case c == '"' || c == ':' || c == ',' || c == '{' || c == '}' || c == ' ' || c == '/':
		return 40
	case c >= '0' && c <= '9':
		return 5
	case c >= 'A' && c <= 'Z':
		return 1
	default:
		return 0
	}
}

func (f finder) in(b []byte) bool {
	a, n := f.s[f.anchor], len(f.s)
	for off := f.anchor; off < len(b); {
		i := bytes.IndexByte(b[off:], a)
		if i < 0 {
			return false
		}
		start := off + i - f.anchor
		if start+n <= len(b) && bytes.Equal(b[start:start+n], f.s) {
			return true
		}
		off += i + 1
	}
	return false
}

func newScrubber(cfg *config.Config, extra []string) *scrubber {
	s := &scrubber{}
	var secrets []string
	if cfg != nil {
		for _, srv := range cfg.Servers {
			if sc := srv.Scrubber(); !sc.Empty() {
				s.servers = append(s.servers, sc)
			}
			secrets = append(secrets, srv.Secrets()...)
		}
	}
	if len(extra) > 0 {
		// config's rule (at least 6 characters) applies to these too.
		s.servers = append(s.servers, config.Server{Env: envOf(extra)}.Scrubber())
		secrets = append(secrets, extra...)
	}
	for _, sec := range secrets {
		if len(sec) < 6 {
			continue
		}
		q, _ := stdjson.Marshal(sec)
		if esc := q[1 : len(q)-1]; string(esc) != sec {
			s.escaped = append(s.escaped, esc)
		}
	}
	sort.SliceStable(s.escaped, func(i, j int) bool { return len(s.escaped[i]) > len(s.escaped[j]) })
	for _, sec := range secrets {
		if len(sec) >= 6 {
			s.finders = append(s.finders, newFinder([]byte(sec)))
		}
	}
	for _, esc := range s.escaped {
		s.finders = append(s.finders, newFinder(esc))
	}
	return s
}

func envOf(values []string) map[string]string {
	m := make(map[string]string, len(values))
	for i, v := range values {
		m["secret"+strconv.Itoa(i)] = v
	}
	return m
}

// line scrubs one encoded line.
func (s *scrubber) line(b []byte) []byte {
	if !s.any(b) {
		return b
	}
	for _, sc := range s.servers {
		b = sc.Bytes(b)
	}
	for _, esc := range s.escaped {
		if bytes.Contains(b, esc) {
			b = bytes.ReplaceAll(b, esc, []byte(config.RedactedValue))
		}
	}
	return b
}

// any reports whether b holds any secret.
func (s *scrubber) any(b []byte) bool {
	for _, f := range s.finders {
		if f.in(b) {
			return true
		}
	}
	return false
}
