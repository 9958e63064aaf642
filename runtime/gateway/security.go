package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// EnvToken names the environment variable a token can come from.
const EnvToken = "MCPDECK_GATEWAY_TOKEN"

// NewToken returns a fresh bearer token: 32 random bytes, URL-safe.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "mcpdeck_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// tokenOK checks the request's bearer token in constant time: both sides
// are hashed first, so not even the length leaks.
func tokenOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		got, ok = strings.CutPrefix(r.Header.Get("Authorization"), "bearer ")
	}
	a := sha256.Sum256([]byte(strings.TrimSpace(got)))
	b := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1 && ok
}

// IsLoopback reports whether a listen address (host:port, or a host)
// binds only the loopback interface. An empty host binds every interface.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackName reports whether a Host header names this machine's
// loopback interface: what a DNS rebinding attack cannot produce.
func loopbackName(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originOK checks a browser's Origin header: absent (not a browser), a
// loopback origin, or one the configuration allows.
func originOK(r *http.Request, allowed []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopbackName(u.Host)
}

// CheckBind refuses an address that is not loopback unless remote is set,
// and a remote bind without a configured token, or with a weak one
// (CheckToken): the generated one is printed on a terminal, which is fine
// for a local client and not for a network, and a network can try many
// tokens.
func CheckBind(addr string, remote bool, token string, configured bool) error {
	if IsLoopback(addr) {
		return nil
	}
	if !remote {
		return fmt.Errorf("%w: %q would accept connections from other machines; bind 127.0.0.1, or pass --allow-remote with a configured token", ErrNotLoopback, addr)
	}
	if !configured {
		return fmt.Errorf("%w: serving %q to other machines needs a token you chose: set gateway.token in your mcp.json or %s", ErrNoToken, addr, EnvToken)
	}
	if err := CheckToken(token); err != nil {
		return fmt.Errorf("serving %q to other machines: %w", addr, err)
	}
	return nil
}

// Token strength: MinTokenLength characters, at least minTokenVariety of
// them different. A random token of 32 characters from any of the usual
// alphabets (hex, base64) passes; a word, a date or "aaaa…" does not.
const (
	MinTokenLength  = 32
	minTokenVariety = 8
)

// CheckToken refuses a token too short or too plain to stand up to
// guessing, and says what a good one is.
func CheckToken(token string) error {
	n := utf8.RuneCountInString(token)
	distinct := map[rune]bool{}
	for _, r := range token {
		distinct[r] = true
	}
	if n >= MinTokenLength && len(distinct) >= minTokenVariety {
		return nil
	}
	return fmt.Errorf("%w: it has %d characters, %d of them different; use at least %d characters, at least %d different, such as the output of `openssl rand -base64 32`, in %s or gateway.token",
		ErrWeakToken, n, len(distinct), MinTokenLength, minTokenVariety, EnvToken)
}
