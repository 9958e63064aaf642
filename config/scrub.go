package config

import (
	"bytes"
	"sort"
	"strings"
)

// Scrubber replaces a server's secret values (env and header values of at
// least 6 characters) in free text with RedactedValue. Shorter values
// ("1", "dev") are almost never credentials, and scrubbing them would
// mangle ordinary output. A nil *Scrubber scrubs nothing.
type Scrubber struct {
	secrets []string // longest first, so a secret containing another goes whole
}

// Scrubber returns the scrubber of s's secrets.
func (s Server) Scrubber() *Scrubber {
	sc := &Scrubber{}
	for _, v := range s.Secrets() {
		if len(v) >= minScrubLen {
			sc.secrets = append(sc.secrets, v)
		}
	}
	sort.SliceStable(sc.secrets, func(i, j int) bool { return len(sc.secrets[i]) > len(sc.secrets[j]) })
	return sc
}

// Empty reports whether there is nothing to scrub.
func (sc *Scrubber) Empty() bool { return sc == nil || len(sc.secrets) == 0 }

// String scrubs v.
func (sc *Scrubber) String(v string) string {
	if sc == nil {
		return v
	}
	for _, sec := range sc.secrets {
		if strings.Contains(v, sec) {
			v = strings.ReplaceAll(v, sec, RedactedValue)
		}
	}
	return v
}

// Bytes scrubs b. Scrubbing JSON keeps it valid: RedactedValue holds no
// quote or backslash.
func (sc *Scrubber) Bytes(b []byte) []byte {
	if sc == nil {
		return b
	}
	for _, sec := range sc.secrets {
		if bytes.Contains(b, []byte(sec)) {
			b = bytes.ReplaceAll(b, []byte(sec), []byte(RedactedValue))
		}
	}
	return b
}
