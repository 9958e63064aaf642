package config

import (
	"errors"
	"slices"
)

// A configuration in which one server is broken (a typo in one timeout)
// should still start every other server: with LoadOptions.KeepInvalid the
// broken server is kept, marked Invalid with its own diagnostics, so the
// faces can show it as "invalid" with file:line:col and never start it.
// Only problems that belong to no server fail the whole load.

// invalidServer is the placeholder kept for a server whose definition has
// the problems diags: its name, where it is, and those problems.
func (p *parser) invalidServer(m member, diags []Diagnostic) Server {
	return Server{
		Name: m.name, Enabled: true, Source: p.path, Scope: p.scope, Pos: p.pos(m.keyOff),
		Invalid: Errors(slices.Clone(diags)),
	}
}

// unattributed is errs without the diagnostics of servers kept as Invalid:
// what still makes the whole configuration unusable. A server's own
// diagnostics are those it holds, wherever they point: a line of its
// envFile is in another file than its definition.
func unattributed(errs []Diagnostic, defs []Server) []Diagnostic {
	kept := map[Diagnostic]bool{}
	for _, s := range defs {
		var own Errors
		if errors.As(s.Invalid, &own) {
			for _, d := range own {
				kept[d] = true
			}
		}
	}
	var out []Diagnostic
	for _, d := range errs {
		if d.Server != "" && kept[d] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// InvalidServers returns the servers kept with an Invalid definition.
func (c *Config) InvalidServers() []Server {
	var out []Server
	for _, s := range c.Servers {
		if s.Invalid != nil {
			out = append(out, s)
		}
	}
	return out
}
