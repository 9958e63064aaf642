package config

import (
	"bytes"
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
	all := longestFirst(slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(sc.own), added...)))))
	sc.merged.Store(&scrubSet{gen: gen, secrets: all})
	return all
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
