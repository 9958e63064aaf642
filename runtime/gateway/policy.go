package gateway

import (
	"sync"
	"time"

	"mcpdeck/config"
)

// policy is one client's rules (config.Gateway.For its name), with the
// decisions cached: the hot path (tools/call) asks for the same names
// again and again.
type policy struct {
	rules config.GatewayPolicy
	// Field names the gateway.clients entry in force ("" for the top-level
	// policy), for ClientInfo.
	field string

	mu    sync.Mutex
	cache map[decisionKey]decision
}

type decisionKey struct {
	kind byte // 's'erver, 't'ool, 'p'rompt, 'a'pproval ('A' of a destructive tool)
	name string
}

type decision struct {
	ok   bool
	rule string
}

// maxCachedDecisions bounds the cache; names come from the catalog, so it
// only grows past this with a very large or churning offer.
const maxCachedDecisions = 4096

func newPolicy(g *config.Gateway, clientName string) *policy {
	rules, field := g.For(clientName)
	return &policy{rules: rules, field: field, cache: map[decisionKey]decision{}}
}

func (p *policy) callTimeout() time.Duration     { return p.rules.CallTimeout }
func (p *policy) maxConcurrent() int             { return p.rules.MaxConcurrent }
func (p *policy) approvalTimeout() time.Duration { return p.rules.ApprovalTimeout }

// approval reports whether a call of the bridged tool of server needs the
// operator's approval, and the rule that asks; cached like the rest.
func (p *policy) approval(server, tool string, destructive bool) (bool, string) {
	kind := byte('a')
	if destructive {
		kind = 'A'
	}
	return p.cached(decisionKey{kind, server + "\x00" + tool}, func() (bool, string) {
		return p.rules.NeedsApproval(server, tool, destructive)
	})
}

func (p *policy) decide(kind byte, name string, rules *config.GatewayRules) (bool, string) {
	return p.cached(decisionKey{kind, name}, func() (bool, string) { return rules.Decide(name) })
}

// cached returns the decision under k, made by f the first time.
func (p *policy) cached(k decisionKey, f func() (bool, string)) (bool, string) {
	p.mu.Lock()
	d, ok := p.cache[k]
	p.mu.Unlock()
	if ok {
		return d.ok, d.rule
	}
	d.ok, d.rule = f()
	p.mu.Lock()
	if len(p.cache) >= maxCachedDecisions {
		clear(p.cache)
	}
	p.cache[k] = d
	p.mu.Unlock()
	return d.ok, d.rule
}

// server reports whether the client may reach server, and else the rule.
func (p *policy) server(name string) (bool, string) { return p.decide('s', name, p.rules.Servers) }

// tool reports whether the client may call a tool: its server and its
// bridged name must both be allowed.
func (p *policy) tool(server, name string) (bool, string) {
	if ok, rule := p.server(server); !ok {
		return false, rule
	}
	return p.decide('t', name, p.rules.Tools)
}

// prompt is tool for prompts.
func (p *policy) prompt(server, name string) (bool, string) {
	if ok, rule := p.server(server); !ok {
		return false, rule
	}
	return p.decide('p', name, p.rules.Prompts)
}

// allows is server as a predicate.
func (p *policy) allows(server string) bool {
	ok, _ := p.server(server)
	return ok
}
