package config

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// secretNameParts make a variable or header name a credential's when the
// upper-cased name contains one: GITHUB_TOKEN, PGPASSWORD, X-Api-Key.
var secretNameParts = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE",
	"PRIVATE", "APIKEY", "API_KEY", "ACCESSKEY", "SIGNATURE", "BEARER",
}

// secretNameWords are credential words that must stand alone in the name
// (split at '_', '-', '.' and case changes), because as substrings they
// hit ordinary names: KEY in MONKEY, AUTH in AUTHOR, PAT in PATH.
var secretNameWords = []string{"KEY", "AUTH", "AUTHORIZATION", "SESSION", "SID", "PAT", "PASS", "DSN"}

// secretPrefixes are the fixed prefixes of well-known token formats
// (OpenAI and Anthropic, Stripe, GitHub, GitLab, Slack, AWS, Google,
// Hugging Face, npm, PyPI, SendGrid, Shopify), so a token is caught
// whatever it is called.
var secretPrefixes = []string{
	"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
	"github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-", "AKIA", "ASIA",
	"AIza", "ya29.", "hf_", "npm_", "pypi-", "SG.", "shpat_", "shpss_", "-----BEGIN",
}

// SecretName reports whether an env or header name looks like it holds a
// credential.
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, p := range secretNameParts {
		if strings.Contains(upper, p) {
			return true
		}
	}
	for _, w := range nameWords(name) {
		if slices.Contains(secretNameWords, w) {
			return true
		}
	}
	return false
}

// nameWords splits a name at separators and lower-to-upper case changes
// and upper-cases the words: "xApiKey" → X, API, KEY.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToUpper(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r)
	}
	flush()
	return words
}

// SecretValue reports whether a value looks like a credential whatever it
// is called: a known token prefix, a JWT, or a long high-entropy word.
// Paths, URLs (whose password is handled apart), numbers and ordinary
// words do not.
func SecretValue(v string) bool {
	if len(v) < 12 || strings.ContainsAny(v, " \t\n") {
		return strings.HasPrefix(v, "-----BEGIN")
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+8 {
			return true
		}
	}
	if looksLikeJWT(v) {
		return true
	}
	if strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".") ||
		(len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/')) {
		return false // a URL or a path
	}
	return len(v) >= 20 && hasLetterAndDigit(v) && tokenCharset(v) && entropy(v) >= 3.5
}

func looksLikeJWT(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 || !strings.HasPrefix(v, "eyJ") {
		return false
	}
	for _, p := range parts {
		if len(p) < 4 || !tokenCharset(p) {
			return false
		}
	}
	return true
}

// tokenCharset reports whether v uses only the characters of base64,
// base64url, hex and the usual token punctuation.
func tokenCharset(v string) bool {
	for _, r := range v {
		if !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("+/=_-.~", r))) {
			return false
		}
	}
	return true
}

func hasLetterAndDigit(v string) bool {
	return strings.ContainsFunc(v, unicode.IsLetter) && strings.ContainsFunc(v, unicode.IsDigit)
}

// entropy is the Shannon entropy of v in bits per byte: random tokens
// score above 4, words and identifiers below 3.5.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(v))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// authSchemes are the HTTP authentication schemes a header value may
// start with (RFC 9110 and the registry): the scheme word is no secret.
var authSchemes = []string{"Bearer", "Basic", "Digest", "DPoP", "Token", "Negotiate", "NTLM", "HOBA", "Mutual", "ApiKey", "Key"}

// authScheme reports whether v is an authentication scheme's name alone.
func authScheme(v string) bool {
	return slices.ContainsFunc(authSchemes, func(s string) bool { return strings.EqualFold(s, v) })
}

// HeaderSecrets are what to scrub for one header value: the value, and
// the credential after its scheme ("Bearer xyz" is often echoed as just
// "xyz"), each only where it can be a credential: not a scheme word
// alone, and not shorter than the shortest secret scrubbed. "Bearer "
// with an empty token would otherwise scrub the word "Bearer" out of
// every challenge and message. Every redactor of header values (the
// configuration's Scrubber, the HTTP transport's errors) takes its
// patterns from here.
func HeaderSecrets(value string) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= minScrubLen && !authScheme(v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	add(value)
	if _, cred, ok := strings.Cut(strings.TrimSpace(value), " "); ok {
		add(cred)
	}
	return out
}

// MissingCredential says what is wrong with a header whose value carries
// no credential where one belongs: an authentication scheme with nothing
// after it ("Bearer $TOKEN" with TOKEN empty), or an empty value of a
// header whose name says credential (X-Api-Key: $KEY). "" when the value
// is fine. Where a header is read (mcp.json, --header) this is refused or
// warned about, as an unset variable is.
func MissingCredential(name, value string) string {
	v := strings.TrimSpace(value)
	switch {
	case authScheme(v):
		return fmt.Sprintf("header %s is %q with no credential after the scheme (an empty variable?)", name, v)
	case v == "" && SecretName(name):
		return fmt.Sprintf("header %s is empty, and its name says it carries a credential (an empty variable?)", name)
	}
	return ""
}

// isSecret applies the rule to one env entry of s.
func (s Server) isSecret(name, value string) bool {
	return value != "" && (SecretName(name) || SecretValue(value) || slices.Contains(s.SecretNames, name))
}

// inheritedSecrets are the values s inherits from mcpdeck's environment
// (envInherit) that look like credentials, so they are scrubbed as well.
func (s Server) inheritedSecrets() []string {
	if s.EnvInherit.IsZero() || s.Transport != TransportStdio {
		return nil
	}
	var out []string
	for _, kv := range processEnv(false, os.Environ(), s.EnvInherit, nil) {
		k, v, _ := strings.Cut(kv, "=")
		if s.isSecret(k, v) {
			out = append(out, v)
		}
	}
	return out
}

// urlPassword returns the password in raw's userinfo, "" if none.
func urlPassword(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
	}
	return ""
}

// registry holds the secrets added at run time (AddSecret). It is
// copy-on-write: scrubbers read it on every call without a lock.
var registry struct {
	mu      sync.Mutex // serialises writers
	secrets atomic.Pointer[[]string]
	gen     atomic.Uint64 // bumped on every change, so scrubbers know to merge again
}

// AddSecret registers a value to scrub everywhere from now on, by every
// Scrubber, in this process: tokens issued at run time (OAuth) are not in
// any configuration. Values shorter than 6 characters are ignored, as for
// configured secrets. It is safe for concurrent use.
func AddSecret(value string) {
	if len(value) < minScrubLen {
		return
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var cur []string
	if p := registry.secrets.Load(); p != nil {
		cur = *p
	}
	if slices.Contains(cur, value) {
		return
	}
	next := append(slices.Clone(cur), value)
	registry.secrets.Store(&next)
	registry.gen.Add(1)
}

// addedSecrets returns the runtime registry and its generation.
func addedSecrets() ([]string, uint64) {
	gen := registry.gen.Load()
	if p := registry.secrets.Load(); p != nil {
		return *p, gen
	}
	return nil, gen
}
