package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/sync/singleflight"
)

// keyCache holds the authorization server's signing keys (its JWKS): fetched
// at the first token, used until they expire (Cache-Control max-age, else
// KeysTTL), and fetched again early when a token names a key id the cache
// does not have (a rotation), at most once per MinRefresh. One fetch at a
// time: concurrent requests share it. When a refetch fails, the keys
// already held keep working.
type keyCache struct {
	a     *JWTAuth
	group singleflight.Group

	mu      sync.Mutex
	url     string // the JWKS URL, once known
	set     []jose.JSONWebKey
	expires time.Time
	fetched time.Time // the last fetch attempt
	fetches int
}

func newKeyCache(a *JWTAuth) *keyCache { return &keyCache{a: a, url: a.opts.JWKSURL} }

// maxJWKSSize bounds a JWKS document.
const maxJWKSSize = 1 << 20

// lookup returns the keys that may have signed a token with kid and alg:
// the one with that kid, or, for a token without kid, every key that fits
// the algorithm.
func (c *keyCache) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	now := c.a.opts.Now()
	c.mu.Lock()
	set, fresh, since := c.set, now.Before(c.expires), now.Sub(c.fetched)
	c.mu.Unlock()
	if keys := match(set, kid, alg); len(keys) > 0 && fresh {
		return keys, nil
	}
	// Stale keys, or an unknown kid: fetch, unless a fetch just happened
	// and the keys are still fresh (a forged kid must not cause one each).
	if set == nil || !fresh || since >= c.a.opts.MinRefresh {
		if err := c.refresh(ctx); err != nil && set == nil {
			return nil, err
		}
		c.mu.Lock()
		set = c.set
		c.mu.Unlock()
	}
	if keys := match(set, kid, alg); len(keys) > 0 {
		return keys, nil
	}
	return nil, &authError{http.StatusUnauthorized, "invalid_token", fmt.Sprintf("the access token is signed with a key the authorization server does not publish (kid %q)", kid)}
}

// match picks the keys a token's header allows.
func match(set []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range set {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		if kid == "" || k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// refresh fetches the keys, once for all concurrent callers.
func (c *keyCache) refresh(ctx context.Context) error {
	ch := c.group.DoChan("jwks", func() (any, error) {
		// Detached from one request: the fetch serves every waiter.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		return nil, c.fetch(fctx)
	})
	select {
	case res := <-ch:
		return res.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *keyCache) fetch(ctx context.Context) error {
	o := c.a.opts
	c.mu.Lock()
	c.fetched = o.Now()
	c.fetches++
	u := c.url
	c.mu.Unlock()
	if u == "" {
		asm, err := sdkauth.GetAuthServerMetadata(ctx, o.Issuer, o.Client)
		switch {
		case err != nil:
			return fmt.Errorf("reading the authorization server's metadata at %s: %w", o.Issuer, err)
		case asm == nil || asm.JWKSURI == "":
			return fmt.Errorf("the authorization server %s publishes no jwks_uri: set gateway.auth.jwksUrl", o.Issuer)
		}
		u = asm.JWKSURI
		c.mu.Lock()
		c.url = u
		c.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("fetching the signing keys: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := o.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the signing keys from %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching the signing keys from %s: HTTP %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSSize+1))
	if err != nil {
		return fmt.Errorf("fetching the signing keys from %s: %w", u, err)
	}
	if len(body) > maxJWKSSize {
		return fmt.Errorf("the signing keys at %s are larger than %d bytes", u, maxJWKSSize)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return fmt.Errorf("the signing keys at %s are not a JWKS: %w", u, err)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.IsPublic() && k.Valid() {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errors.New("the JWKS at " + u + " has no public signing key")
	}
	ttl := o.KeysTTL
	if age, ok := maxAge(resp.Header.Get("Cache-Control")); ok {
		ttl = min(max(age, time.Minute), 24*time.Hour)
	}
	c.mu.Lock()
	c.set, c.expires = keys, o.Now().Add(ttl)
	c.mu.Unlock()
	c.a.forget()
	return nil
}

// maxAge reads Cache-Control's max-age.
func maxAge(cc string) (time.Duration, bool) {
	for _, d := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(strings.ToLower(d)), "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return time.Duration(n) * time.Second, true
			}
		}
	}
	return 0, false
}

// Fetches counts the JWKS fetch attempts, for tests and diagnostics.
func (a *JWTAuth) Fetches() int {
	a.keys.mu.Lock()
	defer a.keys.mu.Unlock()
	return a.keys.fetches
}
