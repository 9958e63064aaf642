package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"mcpdeck/config"
	"mcpdeck/runtime/gateway"
)

// The gateway block in config show: what mcpdeck gateway (and the TUI's
// --serve) would enforce, as resolved. The token is never printed, not
// even with --reveal (config/doc.go: it is never displayed); where it
// comes from is.

// gatewayJSON is the "gateway" member of config show --json, present when
// a file has a gateway block.
type gatewayJSON struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Token is "••••••" when a token is configured, "" when none is.
	Token string `json:"token"`
	// TokenFrom says which token HTTP clients must send: "environment"
	// (MCPDECK_GATEWAY_TOKEN, which wins), "gateway.token", or
	// "generated" (a new one each run).
	TokenFrom      string              `json:"tokenFrom"`
	AllowedOrigins []string            `json:"allowedOrigins"`
	Servers        *rulesJSON          `json:"servers,omitempty"`
	Tools          *rulesJSON          `json:"tools,omitempty"`
	Prompts        *rulesJSON          `json:"prompts,omitempty"`
	CallTimeout    string              `json:"callTimeout"`
	MaxConcurrent  int                 `json:"maxConcurrent"`
	Clients        []gatewayClientJSON `json:"clients"`
}

// rulesJSON is an allow/deny list of globs.
type rulesJSON struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// gatewayClientJSON is one gateway.clients entry: only what it sets.
type gatewayClientJSON struct {
	Match         string     `json:"match"`
	Field         string     `json:"field"`
	Servers       *rulesJSON `json:"servers,omitempty"`
	Tools         *rulesJSON `json:"tools,omitempty"`
	Prompts       *rulesJSON `json:"prompts,omitempty"`
	CallTimeout   string     `json:"callTimeout,omitempty"`
	MaxConcurrent int        `json:"maxConcurrent,omitempty"`
}

// gatewayOf is the gateway block of cfg for config show; nil without one.
func gatewayOf(cfg *config.Config) *gatewayJSON {
	gw := cfg.Gateway
	if gw == nil {
		return nil
	}
	// The top-level policy with the defaults filled in: For without the
	// client entries (a "*" entry would match any name).
	top, _ := (&config.Gateway{Policy: gw.Policy}).For("")
	out := &gatewayJSON{Source: gw.Source, Line: gw.Pos.Line, Column: gw.Pos.Column, TokenFrom: tokenFrom(gw),
		AllowedOrigins: append([]string{}, gw.AllowedOrigins...), Servers: rulesOf(top.Servers), Tools: rulesOf(top.Tools), Prompts: rulesOf(top.Prompts),
		CallTimeout: top.CallTimeout.String(), MaxConcurrent: top.MaxConcurrent, Clients: []gatewayClientJSON{}}
	if gw.Token != "" {
		out.Token = config.RedactedValue
	}
	for _, c := range gw.Clients {
		p := c.Policy
		cj := gatewayClientJSON{Match: c.Match, Field: c.Field, Servers: rulesOf(p.Servers), Tools: rulesOf(p.Tools), Prompts: rulesOf(p.Prompts), MaxConcurrent: p.MaxConcurrent}
		if p.CallTimeout > 0 {
			cj.CallTimeout = p.CallTimeout.String()
		}
		out.Clients = append(out.Clients, cj)
	}
	return out
}

// tokenFrom says which token the gateway will ask HTTP clients for.
func tokenFrom(gw *config.Gateway) string {
	switch {
	case os.Getenv(gateway.EnvToken) != "":
		return "environment"
	case gw.Token != "":
		return "gateway.token"
	}
	return "generated"
}

func rulesOf(r *config.GatewayRules) *rulesJSON {
	if r == nil {
		return nil
	}
	out := &rulesJSON{}
	for _, p := range r.Allow {
		out.Allow = append(out.Allow, p.Glob)
	}
	for _, p := range r.Deny {
		out.Deny = append(out.Deny, p.Glob)
	}
	return out
}

// rulesText is a rule list in one line: "allow a, b; deny c".
func rulesText(r *rulesJSON) string {
	if r == nil {
		return ""
	}
	var parts []string
	if len(r.Allow) > 0 {
		parts = append(parts, "allow "+strings.Join(r.Allow, ", "))
	}
	if len(r.Deny) > 0 {
		parts = append(parts, "deny "+strings.Join(r.Deny, ", "))
	}
	return strings.Join(parts, "; ")
}

// writeGatewayShow prints the gateway block of config show, when there is
// one.
func writeGatewayShow(w io.Writer, cfg *config.Config) {
	gj := gatewayOf(cfg)
	if gj == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Gateway")
	field := func(name, value string) { fmt.Fprintf(w, "  %-15s%s\n", name, value) }
	field("source", config.Position{File: gj.Source, Line: gj.Line, Column: gj.Column}.String())
	switch gj.TokenFrom {
	case "environment":
		token := gateway.EnvToken + " (set; it wins"
		if gj.Token != "" {
			token += " over gateway.token"
		}
		field("token", token+")")
	case "gateway.token":
		field("token", gj.Token+" (gateway.token)")
	default:
		field("token", "generated for each run (set "+gateway.EnvToken+" or gateway.token to keep one)")
	}
	if len(gj.AllowedOrigins) > 0 {
		field("allowedOrigins", strings.Join(gj.AllowedOrigins, ", "))
	}
	for _, r := range []struct {
		name  string
		rules *rulesJSON
	}{{"servers", gj.Servers}, {"tools", gj.Tools}, {"prompts", gj.Prompts}} {
		text := rulesText(r.rules)
		if text == "" {
			text = "all"
		}
		field(r.name, text)
	}
	field("callTimeout", gj.CallTimeout)
	field("maxConcurrent", fmt.Sprint(gj.MaxConcurrent))
	for i, c := range gj.Clients {
		var parts []string
		for _, r := range []struct {
			name  string
			rules *rulesJSON
		}{{"servers", c.Servers}, {"tools", c.Tools}, {"prompts", c.Prompts}} {
			if text := rulesText(r.rules); text != "" {
				parts = append(parts, r.name+" "+text)
			}
		}
		if c.CallTimeout != "" {
			parts = append(parts, "callTimeout "+c.CallTimeout)
		}
		if c.MaxConcurrent > 0 {
			parts = append(parts, fmt.Sprintf("maxConcurrent %d", c.MaxConcurrent))
		}
		if len(parts) == 0 {
			parts = []string{"(the top-level policy)"}
		}
		field(cond(i == 0, "clients", ""), fmt.Sprintf("%s: %s", c.Match, strings.Join(parts, "; ")))
	}
}
