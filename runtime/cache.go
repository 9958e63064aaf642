package runtime

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"mcpdeck/runtime/mcp"
)

// Listing says when one kind of list (tools, prompts, resources) was
// fetched and how long the server said it stays fresh (its ttlMs; legacy
// servers say nothing, so their lists are never fresh).
type Listing struct {
	// At is when the oldest of its pages was fetched from the server.
	At time.Time
	// FreshUntil is when the first of its pages goes stale; not after At
	// when the server gave no ttlMs.
	FreshUntil time.Time
	// FromCache is set when every page came from the cache: the server was
	// not asked again because its earlier answer was still fresh.
	FromCache bool
}

// Fresh reports whether the list may be reused at now without a refetch.
func (l Listing) Fresh(now time.Time) bool { return now.Before(l.FreshUntil) }

// merge combines the listings of two pages (or methods) of one list.
func (l Listing) merge(o Listing) Listing {
	if l.At.IsZero() || (!o.At.IsZero() && o.At.Before(l.At)) {
		l.At = o.At
	}
	if l.FreshUntil.IsZero() || (!o.FreshUntil.IsZero() && o.FreshUntil.Before(l.FreshUntil)) {
		l.FreshUntil = o.FreshUntil
	}
	l.FromCache = l.FromCache && o.FromCache
	return l
}

// Listings are the Listing of each kind of list.
type Listings struct {
	Tools, Prompts, Resources Listing
}

// listingsOf turns the lists' per-kind map into Listings.
func listingsOf(m map[string]Listing) Listings {
	return Listings{Tools: m["tools"], Prompts: m["prompts"], Resources: m["resources"]}
}

// DroppedTool is a tool a server listed that mcpdeck left out, and why.
type DroppedTool struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// listCache keeps list pages that servers said stay fresh (ttlMs), by
// server, method and cursor, so a reconnect inside the TTL does not
// refetch them. A change notification invalidates its kind. Pages are
// reused only for the same server definition and this controller's
// authorization, so both cache scopes (public, private) may be reused.
type listCache struct {
	mu    sync.Mutex
	pages map[string]cachedPage
}

type cachedPage struct {
	raw  json.RawMessage
	hint mcp.CacheHint
}

// get returns a page while it is fresh at now.
func (lc *listCache) get(key string, now time.Time) (cachedPage, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	p, ok := lc.pages[key]
	if !ok || !p.hint.Fresh(now) {
		delete(lc.pages, key)
		return cachedPage{}, false
	}
	return p, true
}

// put keeps a page the server said stays fresh; others are not kept.
func (lc *listCache) put(key string, p cachedPage) {
	if p.hint.TTL <= 0 {
		return
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.pages == nil {
		lc.pages = map[string]cachedPage{}
	}
	lc.pages[key] = p
}

// drop forgets every page whose key starts with prefix.
func (lc *listCache) drop(prefix string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for k := range lc.pages {
		if strings.HasPrefix(k, prefix) {
			delete(lc.pages, k)
		}
	}
}

// cacheKey is a page's key: the server's name and definition (a
// reconfigured server starts cold), its era, the method and the cursor.
func (ls *listState) cacheKey(method, cursor string) string {
	return ls.cachePrefix() + method + "\x00" + cursor
}

func (ls *listState) cachePrefix() string {
	s := ls.s
	return s.name + "\x00" + eraIdentity(s.cfg) + "\x00" + s.era.String() + "\x00"
}

// invalidate forgets the cached pages of one list kind of this server.
func (ls *listState) invalidate(kind string) {
	s := ls.s
	for _, k := range listKinds {
		if k.kind == kind {
			s.c.lists.drop(ls.cachePrefix() + k.method + "\x00")
		}
	}
}
