package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// The protocol revisions mcpdeck speaks.
const (
	// LatestModern is the newest stateless revision: no initialize,
	// server/discover, a _meta envelope on every request.
	LatestModern = "2026-07-28"
	// LatestLegacy is the newest revision with the initialize handshake.
	LatestLegacy = "2025-11-25"
	// firstModern is the revision where the modern era begins; every later
	// revision is modern too.
	firstModern = LatestModern
)

// versions is the one list of revisions mcpdeck speaks, newest first. It is
// unexported so nobody can append to it; Versions hands out copies.
var versions = []string{LatestModern, LatestLegacy, "2025-06-18", "2025-03-26", "2024-11-05"}

// Versions returns every protocol revision mcpdeck speaks, newest first:
// the modern ones, then the legacy ones.
func Versions() []string { return slices.Clone(versions) }

// ModernVersions returns the modern revisions mcpdeck speaks, newest first.
func ModernVersions() []string { return filterEra(versions, Modern) }

// LegacyVersions returns the legacy (initialize) revisions mcpdeck speaks,
// newest first: what initialize asks for and accepts.
func LegacyVersions() []string { return filterEra(versions, Legacy) }

// Supported reports whether mcpdeck speaks version.
func Supported(version string) bool { return slices.Contains(versions, version) }

func filterEra(vs []string, era Era) []string {
	var out []string
	for _, v := range vs {
		if EraOf(v) == era {
			out = append(out, v)
		}
	}
	return out
}

// Era is a protocol era: how a client and server agree on what they speak.
type Era int

// The eras. The zero value is Unknown, so an era never decided is visible.
const (
	// Unknown: not decided yet (before the probe or initialize).
	Unknown Era = iota
	// Legacy: the initialize handshake and a session (2025-11-25 and earlier).
	Legacy
	// Modern: stateless; version, identity and capabilities in every
	// request's _meta (2026-07-28 and later).
	Modern
)

func (e Era) String() string {
	switch e {
	case Legacy:
		return "legacy"
	case Modern:
		return "modern"
	default:
		return "unknown"
	}
}

// EraOf returns the era of a protocol revision. Revisions are dates
// (YYYY-MM-DD), which compare as strings; anything that is not one is
// Unknown.
func EraOf(version string) Era {
	if !isRevision(version) {
		return Unknown
	}
	if version >= firstModern {
		return Modern
	}
	return Legacy
}

func isRevision(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Mutual returns the first of ours (a preference order, newest first) that
// the peer lists in theirs, and whether there was one. It is how a client
// picks the version to retry with after -32022, or to use after
// server/discover.
func Mutual(ours, theirs []string) (string, bool) {
	for _, v := range ours {
		if slices.Contains(theirs, v) {
			return v, true
		}
	}
	return "", false
}

// Mode is how a server's protocol is chosen: the --protocol flag and the
// per-server "protocol" setting.
type Mode int

// The modes.
const (
	// Auto probes for the modern era and falls back to legacy (default).
	Auto Mode = iota
	// LegacyOnly uses initialize, never probing.
	LegacyOnly
	// ModernOnly speaks the modern era and fails against a legacy server.
	ModernOnly
	// Pinned speaks exactly one revision.
	Pinned
)

// Preference is a parsed protocol setting: a mode and, when Pinned, the
// revision.
type Preference struct {
	Mode    Mode
	Version string // set when Mode is Pinned
}

// ParsePreference parses "auto", "legacy", "modern" or a revision mcpdeck
// speaks; "" means auto. The error says what is accepted.
func ParsePreference(s string) (Preference, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Preference{Mode: Auto}, nil
	case "legacy":
		return Preference{Mode: LegacyOnly}, nil
	case "modern":
		return Preference{Mode: ModernOnly}, nil
	}
	v := strings.TrimSpace(s)
	if Supported(v) {
		return Preference{Mode: Pinned, Version: v}, nil
	}
	return Preference{}, fmt.Errorf("%w: %q: use auto, legacy, modern or one of %s", ErrBadPreference, s, strings.Join(versions, ", "))
}

func (p Preference) String() string {
	switch p.Mode {
	case LegacyOnly:
		return "legacy"
	case ModernOnly:
		return "modern"
	case Pinned:
		return p.Version
	default:
		return "auto"
	}
}

// Offer returns the revisions to offer for an era under this preference,
// newest first; empty when the preference rules the era out. A modern
// request asks for Offer(Modern)[0]; initialize asks for
// Offer(Legacy)[0] and accepts any of Offer(Legacy).
func (p Preference) Offer(era Era) []string {
	switch {
	case p.Mode == Pinned:
		if EraOf(p.Version) == era {
			return []string{p.Version}
		}
		return nil
	case p.Mode == LegacyOnly && era == Modern, p.Mode == ModernOnly && era == Legacy:
		return nil
	}
	return filterEra(versions, era)
}

// Probes reports whether the preference starts with the modern era: a
// stdio probe with server/discover, or a modern first request over HTTP.
func (p Preference) Probes() bool { return len(p.Offer(Modern)) > 0 }

// FallsBack reports whether a server found to be legacy may be spoken to
// with initialize under this preference.
func (p Preference) FallsBack() bool { return len(p.Offer(Legacy)) > 0 }
