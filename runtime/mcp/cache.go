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
	var r struct {
		TTL   *float64 `json:"ttlMs"`
		Scope string   `json:"cacheScope"`
	}
	h := CacheHint{Scope: Private, Received: received}
	if json.Unmarshal(result, &r) != nil {
		return h
	}
	if r.TTL != nil && *r.TTL > 0 {
		// Bounded at a day: a server cannot pin a result forever.
		h.TTL = min(time.Duration(*r.TTL*float64(time.Millisecond)), maxTTL)
	}
	if CacheScope(r.Scope) == Public {
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
