package authtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signingKeys are the authorization server's JWT signing keys: the current
// one signs, and every key still published verifies.
type signingKeys struct {
	mu      sync.Mutex
	current jose.JSONWebKey   // private
	public  []jose.JSONWebKey // what /jwks publishes
	fetches int
}

func newSigningKeys(t testing.TB) *signingKeys {
	k := &signingKeys{}
	k.rotate(t, false)
	return k
}

// rotate makes a new current key; keep says whether the old ones stay
// published (a rollover) or go (a revocation).
func (k *signingKeys) rotate(t testing.TB, keep bool) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwk := jose.JSONWebKey{Key: priv, KeyID: "k-" + rand.Text()[:8], Algorithm: string(jose.ES256), Use: "sig"}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.current = jwk
	if !keep {
		k.public = nil
	}
	k.public = append(k.public, jwk.Public())
}

// sign makes the RFC 9068 access token of g.
func (k *signingKeys) sign(issuer string, g Grant) string {
	k.mu.Lock()
	key := k.current
	k.mu.Unlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		panic(err)
	}
	sub := g.Subject
	if sub == "" {
		sub = g.ClientID
	}
	now := time.Now()
	claims := jwt.Claims{Issuer: issuer, Subject: sub, Audience: jwt.Audience{g.Resource}, Expiry: jwt.NewNumericDate(g.Expiry),
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now.Add(-time.Second)), ID: rand.Text()}
	extra := map[string]any{"client_id": g.ClientID, "scope": strings.Join(g.Scopes, " ")}
	tok, err := jwt.Signed(signer).Claims(claims).Claims(extra).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

func (a *AuthServer) jwks(w http.ResponseWriter, _ *http.Request) {
	a.keys.mu.Lock()
	a.keys.fetches++
	set := jose.JSONWebKeySet{Keys: append([]jose.JSONWebKey(nil), a.keys.public...)}
	a.keys.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

// RotateKey replaces the signing key (JWT servers): tokens signed from now
// on carry a new kid. keep leaves the old key published, as a rollover
// does; without it tokens signed by the old key no longer verify.
func (a *AuthServer) RotateKey(t testing.TB, keep bool) { a.keys.rotate(t, keep) }

// JWKSFetches counts the requests for the signing keys.
func (a *AuthServer) JWKSFetches() int {
	a.keys.mu.Lock()
	defer a.keys.mu.Unlock()
	return a.keys.fetches
}

// ForeignToken is a JWT for g signed by a key the server never
// published: what a forged token looks like to a resource server.
func (a *AuthServer) ForeignToken(t testing.TB, g Grant) string {
	other := newSigningKeys(t)
	other.current.KeyID = a.keys.current.KeyID // the same kid: only the signature tells
	return other.sign(a.Issuer, g)
}
