package record

import (
	"bytes"
	stdjson "encoding/json"
	"sort"

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
	return s
}

func envOf(values []string) map[string]string {
	m := make(map[string]string, len(values))
	for i, v := range values {
		m[string(rune('a'+i%26))+string(rune('0'+i/26))] = v
	}
	return m
}

// line scrubs one encoded line.
func (s *scrubber) line(b []byte) []byte {
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
