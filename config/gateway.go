package config

import (
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// Defaults of the gateway block.
const (
	// DefaultGatewayCallTimeout bounds one request a gateway client makes
	// (tools/call, prompts/get, resources/read, completion/complete).
	DefaultGatewayCallTimeout = 60 * time.Second
	// DefaultGatewayMaxConcurrent is how many requests one client may have
	// in flight towards the servers at once.
	DefaultGatewayMaxConcurrent = 16
	// DefaultGatewayApprovalTimeout bounds how long a call that needs the
	// operator's approval waits for it before it is refused.
	DefaultGatewayApprovalTimeout = 2 * time.Minute
)

// Gateway is the "gateway" block of mcp.json: who may use what through
// mcpdeck gateway, and how the HTTP endpoint is secured. The top-level
// fields are the policy of every client; an entry of Clients whose Match
// fits a client's name replaces the fields it sets, for that client.
type Gateway struct {
	// Token is the bearer token HTTP clients must send; "" means
	// MCPDECK_GATEWAY_TOKEN, else one generated per run. A secret: it is
	// read only from explicit (--config) and user files, never from a
	// project's file, and never displayed.
	Token string
	// AllowedOrigins are browser origins allowed besides loopback ones
	// (http://localhost:3000 and the like are always allowed); read only
	// from explicit and user files, like Token.
	AllowedOrigins []string
	Policy         GatewayPolicy
	Clients        []GatewayClient
	// Auth, when set, replaces the bearer token with OAuth: JWT access
	// tokens of an authorization server (see GatewayAuth). Read only from
	// explicit and user files, like Token.
	Auth *GatewayAuth
	// Audit, when set, logs every call (see GatewayAudit); explicit and
	// user files only.
	Audit  *GatewayAudit
	Source string   // the file the block came from
	Pos    Position // the block's key
}

// GatewayClient is a policy for the clients whose identity matches Match,
// a glob: the authenticated identity (GatewayAuth.IdentityClaim) when the
// gateway authenticates with OAuth, else the self-reported name
// (clientInfo.name). The first matching entry wins.
type GatewayClient struct {
	Match  string
	Field  string // "gateway.clients[N]", for messages naming the rule
	Policy GatewayPolicy
}

// GatewayPolicy is what a client may reach and how hard it may push. A nil
// rule list or a zero number means "not set here" (the default, or the
// top-level value for a client entry).
type GatewayPolicy struct {
	Servers, Tools, Prompts *GatewayRules
	// CallTimeout bounds each request; 0 means not set.
	CallTimeout time.Duration
	// MaxConcurrent bounds the requests in flight per client; 0 means not set.
	MaxConcurrent int
	// RateLimit bounds each client's forwarded requests (a token bucket
	// per client); nil means not set (no limit).
	RateLimit *GatewayRate
	// ToolRateLimits bound each client's calls of matching tools (a bucket
	// per client and tool); nil means not set, and every matching entry
	// applies.
	ToolRateLimits []GatewayToolRate
	// ApproveDestructive, when on, makes a call to a tool annotated
	// destructiveHint: true wait for the operator's approval; nil means
	// not set (off).
	ApproveDestructive *GatewayFlag
	// ApprovalTimeout bounds the wait for the operator's approval; 0
	// means not set (DefaultGatewayApprovalTimeout).
	ApprovalTimeout time.Duration
}

// GatewayFlag is a boolean setting with where it was written, so a
// decision can name it.
type GatewayFlag struct {
	On    bool
	Field string // e.g. "gateway.approveDestructive"
	Pos   Position
}

// String names the setting for messages.
func (f GatewayFlag) String() string { return fmt.Sprintf("%s at %s", f.Field, f.Pos) }

// NeedsApproval reports whether a call to a tool of server, bridged as
// tool, waits for the operator's approval, and the rule that says so: a
// servers or tools approve pattern, or approveDestructive for a tool
// annotated destructiveHint: true.
func (p GatewayPolicy) NeedsApproval(server, tool string, destructive bool) (bool, string) {
	if ok, rule := p.Servers.Approves(server); ok {
		return true, rule
	}
	if ok, rule := p.Tools.Approves(tool); ok {
		return true, rule
	}
	if destructive && p.ApproveDestructive != nil && p.ApproveDestructive.On {
		return true, p.ApproveDestructive.String() + " (the tool is annotated destructiveHint: true)"
	}
	return false, ""
}

// GatewayRules allow and deny names by glob (path.Match syntax: *, ?,
// [a-z]). A name is allowed when it matches no Deny pattern and, if Allow
// is not empty, some Allow pattern. Deny wins. Approve (servers and tools
// only) names what is allowed only with the operator's approval, call by
// call.
type GatewayRules struct {
	Allow, Deny, Approve []GatewayPattern
}

// Approves reports whether name matches an Approve pattern, and which.
func (r *GatewayRules) Approves(name string) (bool, string) {
	if r == nil {
		return false, ""
	}
	for _, p := range r.Approve {
		if p.Match(name) {
			return true, p.String()
		}
	}
	return false, ""
}

// GatewayPattern is one glob with where it was written, so a refusal can
// name the rule ("gateway.tools.deny[0] \"*__delete*\" at mcp.json:9:14").
type GatewayPattern struct {
	Glob  string
	Field string // e.g. "gateway.tools.deny[0]"
	Pos   Position
}

// Match reports whether name matches the glob.
func (g GatewayPattern) Match(name string) bool {
	ok, _ := path.Match(g.Glob, name)
	return ok
}

// String names the rule for messages.
func (g GatewayPattern) String() string {
	return fmt.Sprintf("%s %q at %s", g.Field, g.Glob, g.Pos)
}

// Decide applies the rules to name: whether it is allowed, and the rule
// that decided when it is not (nil when allowed, or when refused because
// it is on no non-empty allow list: then the list's field is named).
func (r *GatewayRules) Decide(name string) (allowed bool, rule string) {
	if r == nil {
		return true, ""
	}
	for _, p := range r.Deny {
		if p.Match(name) {
			return false, p.String()
		}
	}
	if len(r.Allow) == 0 {
		return true, ""
	}
	for _, p := range r.Allow {
		if p.Match(name) {
			return true, ""
		}
	}
	field := r.Allow[0].Field
	if i := len(field) - len("[0]"); i > 0 {
		field = field[:i]
	}
	return false, fmt.Sprintf("%s (matches none of its %d patterns)", field, len(r.Allow))
}

// For returns the policy of a client named name: the top-level policy with
// the fields set by the first matching Clients entry replacing its own,
// the defaults filled in, and the entry's field ("" for none).
func (g *Gateway) For(name string) (GatewayPolicy, string) {
	pol := GatewayPolicy{}
	field := ""
	if g != nil {
		pol = g.Policy
		for _, c := range g.Clients {
			if ok, _ := path.Match(c.Match, name); ok {
				pol = pol.over(c.Policy)
				field = c.Field
				break
			}
		}
	}
	if pol.CallTimeout <= 0 {
		pol.CallTimeout = DefaultGatewayCallTimeout
	}
	if pol.MaxConcurrent <= 0 {
		pol.MaxConcurrent = DefaultGatewayMaxConcurrent
	}
	if pol.ApprovalTimeout <= 0 {
		pol.ApprovalTimeout = DefaultGatewayApprovalTimeout
	}
	return pol, field
}

// HasApprovals reports whether any rule of the block (top level or a
// clients entry) makes calls wait for the operator's approval.
func (g *Gateway) HasApprovals() bool {
	if g == nil {
		return false
	}
	has := func(p GatewayPolicy) bool {
		return (p.Servers != nil && len(p.Servers.Approve) > 0) || (p.Tools != nil && len(p.Tools.Approve) > 0) ||
			(p.ApproveDestructive != nil && p.ApproveDestructive.On)
	}
	if has(g.Policy) {
		return true
	}
	for _, c := range g.Clients {
		if has(c.Policy) {
			return true
		}
	}
	return false
}

// over returns p with the fields o sets replacing its own, except the
// approvals: a client entry's approve patterns and approveDestructive add
// to the top-level ones and never remove them, since a client's name is
// its own claim and must not buy it fewer approvals.
func (p GatewayPolicy) over(o GatewayPolicy) GatewayPolicy {
	if o.Servers != nil {
		p.Servers = o.Servers.keepApprovals(p.Servers)
	}
	if o.Tools != nil {
		p.Tools = o.Tools.keepApprovals(p.Tools)
	}
	if o.ApproveDestructive != nil && (p.ApproveDestructive == nil || !p.ApproveDestructive.On) {
		p.ApproveDestructive = o.ApproveDestructive
	}
	if o.ApprovalTimeout > 0 {
		p.ApprovalTimeout = o.ApprovalTimeout
	}
	if o.Prompts != nil {
		p.Prompts = o.Prompts
	}
	if o.CallTimeout > 0 {
		p.CallTimeout = o.CallTimeout
	}
	if o.MaxConcurrent > 0 {
		p.MaxConcurrent = o.MaxConcurrent
	}
	if o.RateLimit != nil {
		p.RateLimit = o.RateLimit
	}
	if o.ToolRateLimits != nil {
		p.ToolRateLimits = o.ToolRateLimits
	}
	return p
}

// keepApprovals returns r (a client entry's rules) with the approve
// patterns of top (the top-level rules it replaces) added to its own.
func (r *GatewayRules) keepApprovals(top *GatewayRules) *GatewayRules {
	if top == nil || len(top.Approve) == 0 {
		return r
	}
	out := *r
	out.Approve = append(append([]GatewayPattern(nil), top.Approve...), r.Approve...)
	return &out
}

// parseGateway reads the "gateway" block of a file.
func (p *parser) parseGateway(m *member) *Gateway {
	if m == nil {
		return nil
	}
	const field = "gateway"
	obj, ok := p.object(m.value, "", field, "an object")
	if !ok {
		return nil
	}
	g := &Gateway{Source: p.path, Pos: p.pos(m.keyOff)}
	var rest []member
	for _, gm := range p.members(obj, "", field) {
		f := field + "." + gm.name
		switch gm.name {
		case "token":
			if p.untrusted(gm, f, "put the token in your user mcp.json, a --config file or MCPDECK_GATEWAY_TOKEN") {
				continue
			}
			raw, ok := p.str(gm.value, "", f)
			if !ok {
				continue
			}
			x := p.exp.expand(raw, false)
			for _, msg := range x.problems {
				p.errorf(gm.value.StartOffset, "", f, "%s", msg)
			}
			if len(x.inputs) > 0 {
				p.errorf(gm.value.StartOffset, "", f, "${input:...} cannot be prompted for here; use ${env:NAME}")
			}
			g.Token = x.value
		case "allowedOrigins":
			if p.untrusted(gm, f, "a project must not open the gateway to web pages; put it in your user mcp.json or a --config file") {
				continue
			}
			g.AllowedOrigins, _, _ = p.stringList(gm.value, "", f)
		case "clients":
			g.Clients = p.gatewayClients(gm.value, f)
		case "auth", "audit":
			if p.untrusted(gm, f, "put it in your user mcp.json or a --config file") {
				continue
			}
			if gm.name == "auth" {
				g.Auth = p.gatewayAuth(gm.value, f)
			} else {
				g.Audit = p.gatewayAudit(gm.value, f)
			}
		default:
			rest = append(rest, gm)
		}
	}
	g.Policy = p.gatewayPolicy(rest, field)
	return g
}

// gatewayClients reads "clients": an array of {"match": GLOB, ...policy}.
func (p *parser) gatewayClients(v *hujson.Value, field string) []GatewayClient {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errorf(v.StartOffset, "", field, `must be an array of {"match": "client-name-glob", ...} objects, not %s`, kindName(v.Value.Kind()))
		return nil
	}
	var out []GatewayClient
	for i := range arr.Elements {
		el := &arr.Elements[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		obj, ok := p.object(el, "", f, `an object with "match"`)
		if !ok {
			continue
		}
		c := GatewayClient{Field: f}
		var rest []member
		for _, cm := range p.members(obj, "", f) {
			if cm.name != "match" {
				rest = append(rest, cm)
				continue
			}
			if s, ok := p.str(cm.value, "", f+".match"); ok {
				if _, err := path.Match(s, ""); err != nil || s == "" {
					p.errorf(cm.value.StartOffset, "", f+".match", "%q is not a valid glob (use *, ? and [a-z])", s)
				}
				c.Match = s
			}
		}
		if c.Match == "" {
			p.errorf(el.StartOffset, "", f, `has no "match": give the client name (clientInfo.name) it applies to, a glob such as "claude-code*"`)
			continue
		}
		c.Policy = p.gatewayPolicy(rest, f)
		out = append(out, c)
	}
	return out
}

// gatewayFields and ruleFields are the fields of the gateway block and of
// its allow/deny rules, for warnings.
var (
	gatewayFields = []string{"token", "allowedOrigins", "servers", "tools", "prompts", "callTimeout", "maxConcurrent", "clients",
		"auth", "audit", "rateLimit", "toolRateLimits", "approveDestructive", "approvalTimeout"}
	ruleFields = []string{"allow", "deny", "approve"}
)

// gatewayPolicy reads the policy fields among ms; field prefixes their names.
func (p *parser) gatewayPolicy(ms []member, field string) GatewayPolicy {
	var pol GatewayPolicy
	for _, m := range ms {
		f := field + "." + m.name
		switch m.name {
		case "servers":
			pol.Servers = p.gatewayRules(m.value, f, true)
		case "tools":
			pol.Tools = p.gatewayRules(m.value, f, true)
		case "prompts":
			pol.Prompts = p.gatewayRules(m.value, f, false)
		case "approveDestructive":
			if on, ok := p.boolean(m.value, "", f); ok {
				pol.ApproveDestructive = &GatewayFlag{On: on, Field: f, Pos: p.pos(m.keyOff)}
			}
		case "approvalTimeout":
			pol.ApprovalTimeout, _ = p.duration(m.value, "", f, 0, false)
		case "callTimeout", "timeout":
			pol.CallTimeout, _ = p.duration(m.value, "", f, 0, false)
		case "maxConcurrent":
			n, ok := number(m.value)
			if !ok || n != math.Trunc(n) || n < 1 || n > 1<<16 {
				p.errorf(m.value.StartOffset, "", f, "must be a whole number of requests from 1 to 65536 (default %d)", DefaultGatewayMaxConcurrent)
				continue
			}
			pol.MaxConcurrent = int(n)
		case "rateLimit":
			pol.RateLimit = p.gatewayRateLimit(m.value, f)
		case "toolRateLimits":
			pol.ToolRateLimits = p.gatewayToolRates(m.value, f)
		default:
			p.unknown(m.keyOff, "", f, m.name, gatewayFields, "known: "+strings.Join(gatewayFields, ", "))
		}
	}
	return pol
}

// gatewayRules reads {"allow": [GLOB...], "deny": [GLOB...]}, and
// "approve": [GLOB...] where approvals apply (servers, tools).
func (p *parser) gatewayRules(v *hujson.Value, field string, approvals bool) *GatewayRules {
	obj, ok := p.object(v, "", field, `an object like {"allow": ["*"], "deny": ["x*"]}`)
	if !ok {
		return nil
	}
	r := &GatewayRules{}
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		var dst *[]GatewayPattern
		switch m.name {
		case "allow":
			dst = &r.Allow
		case "deny":
			dst = &r.Deny
		case "approve":
			if !approvals {
				p.errorf(m.keyOff, "", f, "approvals apply to tool calls: put the pattern in gateway.tools.approve (bridged tool names) or gateway.servers.approve")
				continue
			}
			dst = &r.Approve
		default:
			p.unknown(m.keyOff, "", f, m.name, ruleFields, "known: "+strings.Join(ruleFields, ", "))
			continue
		}
		list, offs, _ := p.stringList(m.value, "", f)
		for i, glob := range list {
			ef := fmt.Sprintf("%s[%d]", f, i)
			if _, err := path.Match(glob, ""); err != nil || glob == "" {
				p.errorf(offs[i], "", ef, "%q is not a valid glob (use *, ? and [a-z])", glob)
				continue
			}
			*dst = append(*dst, GatewayPattern{Glob: glob, Field: ef, Pos: p.pos(offs[i])})
		}
	}
	return r
}
