package auth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// DPoP (RFC 9449, the MCP extension SEP-1932) binds a token to a key the
// client holds, so a stolen token is useless without it. mcpdeck uses it
// when the server asks for it: its 401 challenge uses the DPoP scheme.
// The login then makes a P-256 key, sends a proof signed with it on every
// token request, and keeps the key with the token (in the keyring or the
// 0600 file, like the token) when the authorization server issued a DPoP
// token; every request to the server then carries "Authorization: DPoP"
// and a fresh proof (its own jti, the method and URL, the token's hash).
// A use_dpop_nonce answer, from the authorization server or the MCP
// server, is retried once with the nonce it names, and the latest nonce
// of each origin is remembered for the next proof.

// dpopKeyContext carries the key of a login or refresh to its token
// requests (tokenContext reads it).
type dpopKeyContext struct{}

func withDPoPKey(ctx context.Context, key *ecdsa.PrivateKey) context.Context {
	if key == nil {
		return ctx
	}
	return context.WithValue(ctx, dpopKeyContext{}, key)
}

func dpopKeyFrom(ctx context.Context) *ecdsa.PrivateKey {
	k, _ := ctx.Value(dpopKeyContext{}).(*ecdsa.PrivateKey)
	return k
}

func newDPoPKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// encodeDPoPKey and decodeDPoPKey keep the key in a token record.
func encodeDPoPKey(k *ecdsa.PrivateKey) string {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(der)
}

func decodeDPoPKey(s string) (*ecdsa.PrivateKey, error) {
	der, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T is not a DPoP key", k)
	}
	return ec, nil
}

// dpopProof signs a proof for one request: method and URL (without query
// and fragment, RFC 9449 §4.2), the server's nonce when it gave one, and
// for a request to the resource the access token's hash (ath).
func dpopProof(key *ecdsa.PrivateKey, method string, u *url.URL, nonce, accessToken string, now time.Time) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return "", err
	}
	htu := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	claims := map[string]any{"jti": rand.Text(), "htm": method, "htu": htu.String(), "iat": jwt.NewNumericDate(now)}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// nonce returns the DPoP nonce an origin gave last.
func (m *Manager) nonce(u *url.URL) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nonces[originOf(u)]
}

// setNonce remembers a DPoP-Nonce header's value for u's origin.
func (m *Manager) setNonce(u *url.URL, h http.Header) {
	n := h.Get("DPoP-Nonce")
	if n == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.nonces == nil {
		m.nonces = map[string]string{}
	}
	m.nonces[originOf(u)] = n
}

// dpopTokenRequests adds a DPoP proof to each token request and, when the
// authorization server answers use_dpop_nonce, sends it once more with a
// proof carrying its nonce (RFC 9449 §8).
type dpopTokenRequests struct {
	m    *Manager
	key  *ecdsa.PrivateKey
	base http.RoundTripper
}

func (d *dpopTokenRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	send := func() (*http.Response, error) {
		proof, err := dpopProof(d.key, req.Method, req.URL, d.m.nonce(req.URL), "", d.m.opts.Now())
		if err != nil {
			return nil, fmt.Errorf("signing a DPoP proof: %w", err)
		}
		r := req.Clone(req.Context())
		if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		r.Header.Set("DPoP", proof)
		return d.base.RoundTrip(r)
	}
	resp, err := send()
	if err != nil {
		return nil, err
	}
	d.m.setNonce(req.URL, resp.Header)
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("DPoP-Nonce") == "" || req.GetBody == nil {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	resp, err = send()
	if err == nil {
		d.m.setNonce(req.URL, resp.Header)
	}
	return resp, err
}

// boundTo runs grant with key (nil: none) for its token requests' proofs
// and binds the token it returns to the key.
func boundTo(ctx context.Context, key *ecdsa.PrivateKey, grant func(context.Context) (*tokenRecord, error)) (*tokenRecord, error) {
	rec, err := grant(withDPoPKey(ctx, key))
	if err != nil {
		return nil, err
	}
	bindDPoP(rec, key)
	return rec, nil
}

// bindDPoP keeps key with rec when the authorization server issued a
// DPoP-bound token; a Bearer token (the server ignored the proof) goes
// without it.
func bindDPoP(rec *tokenRecord, key *ecdsa.PrivateKey) {
	rec.DPoPKey = ""
	if key != nil && strings.EqualFold(rec.TokenType, "DPoP") {
		rec.DPoPKey = encodeDPoPKey(key)
	}
}
