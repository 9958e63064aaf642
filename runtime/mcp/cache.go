package mcp

import (
	"encoding/json"
	"time"
)

// CacheScope says who may reuse a cached result.
type CacheScope string

// The cache scopes.
const (
	// Private results may be reused only in the same authorization
	// context; it is the safe reading of anything unknown.
	Private CacheScope = "private"
	// Public results hold no user-specific data.
	Public CacheScope = "public"
)

// CacheHint is a result's freshness: ttlMs and cacheScope, with the time
// it was received (the freshness clock starts then).
type CacheHint struct {
	TTL      time.Duration
	Scope    CacheScope
	Received time.Time
}

// ParseCacheHint reads ttlMs and cacheScope from a result. Absent or
// negative ttlMs is 0 (immediately stale), as the specification says; an
// absent or unknown cacheScope is Private.
func ParseCacheHint(result json.RawMessage, received time.Time) CacheHint {
	var p Page
	if json.Unmarshal(result, &p) != nil {
		return CacheHint{Scope: Private, Received: received}
	}
	return p.Hint(received)
}

// cacheHint is the hint of a result's ttlMs and cacheScope.
func cacheHint(ttlMs *float64, scope CacheScope, received time.Time) CacheHint {
	h := CacheHint{Scope: Private, Received: received}
	if ttlMs != nil && *ttlMs > 0 {
		// Bounded at a day: a server cannot pin a result forever.
		h.TTL = min(time.Duration(*ttlMs*float64(time.Millisecond)), maxTTL)
	}
	if scope == Public {
		h.Scope = Public
	}
	return h
}

// maxTTL bounds a server's ttlMs.
const maxTTL = 24 * time.Hour

// Fresh reports whether the result may be reused at now without a refetch.
func (h CacheHint) Fresh(now time.Time) bool {
	return h.TTL > 0 && now.Before(h.Received.Add(h.TTL))
}

// Expires is when the result goes stale (Received when it never was fresh).
func (h CacheHint) Expires() time.Time { return h.Received.Add(h.TTL) }
