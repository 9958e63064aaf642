package config

import (
	"fmt"
	"math"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// GatewayAuth makes the HTTP gateway an OAuth 2.1 protected resource (the
// MCP authorization spec): it publishes protected resource metadata
// (RFC 9728) naming Issuer, accepts only JWT access tokens that issuer
// signed for the gateway, and takes each client's identity from a claim.
type GatewayAuth struct {
	// Issuer is the authorization server's issuer identifier: tokens must
	// carry it as iss, and clients log in there.
	Issuer string
	// Resource is the gateway's public URL, the audience every token must
	// name (RFC 8707): "" means the URL it serves (http://ADDR/mcp). Set
	// it when clients reach the gateway under another name (a load
	// balancer, a TLS proxy).
	Resource string
	// JWKSURL is where the signing keys are; "" means the jwks_uri of the
	// issuer's metadata (RFC 8414, then OpenID discovery).
	JWKSURL string
	// IdentityClaim names the claim whose value is the client's identity,
	// what gateway.clients[].match and the rate limits key on, and what
	// the audit log records; default "sub".
	IdentityClaim string
	// Scopes must all be granted to the token; published as
	// scopes_supported and in the 401 challenge.
	Scopes []string
	Pos    Position
}

// DefaultIdentityClaim is GatewayAuth.IdentityClaim's default.
const DefaultIdentityClaim = "sub"

// GatewayRate is a token bucket: Burst requests at once, refilled at
// PerSecond.
type GatewayRate struct {
	PerSecond float64
	Burst     int
	Field     string // e.g. "gateway.rateLimit", for the refusal's rule
	Pos       Position
}

// String names the limit for messages: "10/s, burst 20 (gateway.rateLimit at mcp.json:4:18)".
func (r GatewayRate) String() string {
	return fmt.Sprintf("%s, burst %d (%s at %s)", RateString(r.PerSecond), r.Burst, r.Field, r.Pos)
}

// RateString writes a rate the way the configuration does: per second,
// or per minute or hour when that reads as a whole number.
func RateString(perSecond float64) string {
	switch {
	case perSecond >= 1 || perSecond <= 0:
		return strconv.FormatFloat(perSecond, 'f', -1, 64) + "/s"
	case perSecond*60 == math.Trunc(perSecond*60):
		return strconv.FormatFloat(perSecond*60, 'f', -1, 64) + "/m"
	}
	return strconv.FormatFloat(math.Round(perSecond*3600*1000)/1000, 'f', -1, 64) + "/h"
}

// GatewayToolRate limits each client's calls of the tools whose bridged
// name (server__tool) matches Tools.
type GatewayToolRate struct {
	Tools string // a glob
	GatewayRate
}

// GatewayAudit is the per-call audit log.
type GatewayAudit struct {
	// File is the JSON Lines file calls are appended to.
	File string
	// Arguments is what a call's arguments become in the log: "digest"
	// (SHA-256 of their canonical JSON, the default: which calls were the
	// same, not what they said), "scrubbed" (the arguments with every
	// configured secret and credential-looking value replaced) or "none".
	Arguments string
	// MaxSizeMB rotates the file when it would grow past this size
	// (default 100); MaxFiles rotated files are kept (default 10).
	MaxSizeMB int
	MaxFiles  int
	Pos       Position
}

// Audit argument modes.
const (
	AuditDigest   = "digest"
	AuditScrubbed = "scrubbed"
	AuditNone     = "none"
)

// Defaults of the audit log.
const (
	DefaultAuditMaxSizeMB = 100
	DefaultAuditMaxFiles  = 10
)

var (
	authFields  = []string{"issuer", "resource", "jwksUrl", "identityClaim", "scopes"}
	rateFields  = []string{"rate", "burst"}
	toolFields  = []string{"tools", "rate", "burst"}
	auditFields = []string{"file", "arguments", "maxSizeMB", "maxFiles"}
)

// gatewayAuth reads the "auth" block.
func (p *parser) gatewayAuth(v *hujson.Value, field string) *GatewayAuth {
	obj, ok := p.object(v, "", field, `an object like {"issuer": "https://auth.example.com"}`)
	if !ok {
		return nil
	}
	a := &GatewayAuth{IdentityClaim: DefaultIdentityClaim, Pos: p.pos(v.StartOffset)}
	given := false
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		switch m.name {
		case "issuer", "resource", "jwksUrl":
			given = given || m.name == "issuer"
			s, ok := p.str(m.value, "", f)
			if !ok {
				continue
			}
			s = p.exp.expand(s, false).value
			if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				p.errorf(m.value.StartOffset, "", f, "%q is not an http(s) URL with a host", s)
				continue
			}
			switch m.name {
			case "issuer":
				a.Issuer = s
			case "resource":
				a.Resource = s
			default:
				a.JWKSURL = s
			}
		case "identityClaim":
			if s, ok := p.str(m.value, "", f); ok && s != "" {
				a.IdentityClaim = s
			}
		case "scopes":
			a.Scopes, _, _ = p.stringList(m.value, "", f)
		default:
			p.unknown(m.keyOff, "", f, m.name, authFields, "known: "+strings.Join(authFields, ", "))
		}
	}
	if a.Issuer == "" {
		if given {
			return nil // its own error says why
		}
		p.errorf(v.StartOffset, "", field, `has no "issuer": name the authorization server whose tokens the gateway accepts`)
		return nil
	}
	return a
}

// gatewayRate reads {"rate": "10/s", "burst": 20}.
func (p *parser) gatewayRate(v *hujson.Value, field string, obj *hujson.Object, known []string) (GatewayRate, bool) {
	r := GatewayRate{Field: field, Pos: p.pos(v.StartOffset)}
	ok := true
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		switch m.name {
		case "rate":
			var raw string
			if s, isStr := m.value.Value.(hujson.Literal); isStr && s.Kind() == '"' {
				raw = s.String()
			} else if n, isNum := number(m.value); isNum {
				raw = strconv.FormatFloat(n, 'f', -1, 64)
			}
			perSec, err := parseRate(raw)
			if err != nil {
				p.errorf(m.value.StartOffset, "", f, "%v", err)
				ok = false
				continue
			}
			r.PerSecond = perSec
		case "burst":
			n, isNum := number(m.value)
			if !isNum || n != math.Trunc(n) || n < 1 || n > 1<<20 {
				p.errorf(m.value.StartOffset, "", f, "must be a whole number of requests from 1 to 1048576")
				ok = false
				continue
			}
			r.Burst = int(n)
		default:
			if !slices.Contains(known, m.name) {
				p.unknown(m.keyOff, "", f, m.name, known, "known: "+strings.Join(known, ", "))
			}
		}
	}
	if r.PerSecond == 0 && ok {
		p.errorf(v.StartOffset, "", field, `has no "rate": write it as "10/s", "600/m" or "1000/h"`)
		return r, false
	}
	if r.Burst == 0 {
		// One second's worth, at least one: a client that keeps to the rate
		// is never refused for arriving in a small bunch.
		r.Burst = max(int(math.Ceil(r.PerSecond)), 1)
	}
	return r, ok
}

// parseRate reads "N/s", "N/m", "N/h" or a bare number (per second).
func parseRate(s string) (float64, error) {
	num, unit, hasUnit := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, fmt.Errorf("%q is not a rate: write a positive number per second, minute or hour, like \"10/s\", \"600/m\" or \"1000/h\"", s)
	}
	if !hasUnit {
		return n, nil
	}
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		return n, nil
	case "m", "min", "minute":
		return n / 60, nil
	case "h", "hour":
		return n / 3600, nil
	}
	return 0, fmt.Errorf("%q: the unit after / must be s, m or h", s)
}

// gatewayRateLimit reads "rateLimit".
func (p *parser) gatewayRateLimit(v *hujson.Value, field string) *GatewayRate {
	obj, isObj := p.object(v, "", field, `an object like {"rate": "10/s", "burst": 20}`)
	if !isObj {
		return nil
	}
	r, ok := p.gatewayRate(v, field, obj, rateFields)
	if !ok {
		return nil
	}
	return &r
}

// gatewayToolRates reads "toolRateLimits": [{"tools": GLOB, "rate": ..., "burst": ...}].
func (p *parser) gatewayToolRates(v *hujson.Value, field string) []GatewayToolRate {
	arr, isArr := v.Value.(*hujson.Array)
	if !isArr {
		p.errorf(v.StartOffset, "", field, `must be an array of {"tools": GLOB, "rate": "5/m"} objects, not %s`, kindName(v.Value.Kind()))
		return nil
	}
	out := []GatewayToolRate{}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		obj, isObj := p.object(el, "", f, `an object with "tools" and "rate"`)
		if !isObj {
			continue
		}
		var glob string
		for _, m := range p.members(obj, "", f) {
			if m.name != "tools" {
				continue
			}
			if s, ok := p.str(m.value, "", f+".tools"); ok {
				if _, err := path.Match(s, ""); err != nil || s == "" {
					p.errorf(m.value.StartOffset, "", f+".tools", "%q is not a valid glob (use *, ? and [a-z])", s)
					continue
				}
				glob = s
			}
		}
		r, ok := p.gatewayRate(el, f, obj, toolFields)
		if glob == "" {
			p.errorf(el.StartOffset, "", f, `has no "tools": give the bridged tool names (server__tool) it limits, a glob such as "github__create_*"`)
			continue
		}
		if ok {
			out = append(out, GatewayToolRate{Tools: glob, GatewayRate: r})
		}
	}
	return out
}

// gatewayAudit reads "audit": a file name, or {"file": ..., ...}.
func (p *parser) gatewayAudit(v *hujson.Value, field string) *GatewayAudit {
	a := &GatewayAudit{Arguments: AuditDigest, MaxSizeMB: DefaultAuditMaxSizeMB, MaxFiles: DefaultAuditMaxFiles, Pos: p.pos(v.StartOffset)}
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		a.File = p.auditPath(lit.String())
		return a
	}
	obj, ok := p.object(v, "", field, `a file name or an object like {"file": "/var/log/mcpdeck/audit.jsonl", "arguments": "digest"}`)
	if !ok {
		return nil
	}
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		switch m.name {
		case "file":
			if s, ok := p.str(m.value, "", f); ok {
				a.File = p.auditPath(s)
			}
		case "arguments":
			s, ok := p.str(m.value, "", f)
			if !ok {
				continue
			}
			switch s {
			case AuditDigest, AuditScrubbed, AuditNone:
				a.Arguments = s
			default:
				p.errorf(m.value.StartOffset, "", f, "%q: must be %q (a SHA-256 of the arguments, the default), %q (the arguments with secrets replaced) or %q", s, AuditDigest, AuditScrubbed, AuditNone)
			}
		case "maxSizeMB", "maxFiles":
			n, isNum := number(m.value)
			if !isNum || n != math.Trunc(n) || n < 1 || n > 1<<20 {
				p.errorf(m.value.StartOffset, "", f, "must be a whole number from 1 to 1048576")
				continue
			}
			if m.name == "maxSizeMB" {
				a.MaxSizeMB = int(n)
			} else {
				a.MaxFiles = int(n)
			}
		default:
			p.unknown(m.keyOff, "", f, m.name, auditFields, "known: "+strings.Join(auditFields, ", "))
		}
	}
	if a.File == "" {
		p.errorf(v.StartOffset, "", field, `has no "file": name the JSON Lines file calls are logged to`)
		return nil
	}
	return a
}

// auditPath expands variables and resolves a relative path against the
// file's directory, as cwd and envFile are.
func (p *parser) auditPath(s string) string {
	s = p.exp.expand(s, true).value
	if s != "" && !filepath.IsAbs(s) {
		s = filepath.Join(p.baseDir, s)
	}
	return s
}
