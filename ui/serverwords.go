package ui

import (
	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// noteDisabledInConfig is the runtime's note on a server that is off
// while MCP is off. The runtime cannot yet tell a server the configuration
// disables from one the person switched off in this session, so the UI
// remembers what it switched off (common.switchedOff) and words both.
const noteDisabledInConfig = "disabled in configuration"

// stateWord is the STATE column: "invalid" for a server whose
// configuration is invalid (it never starts), "off" for one switched off,
// else the runtime's state.
func (c *common) stateWord(srv runtime.ServerSnapshot) string {
	switch {
	case c.invalid[srv.Name] != "":
		return "invalid"
	case !srv.Enabled:
		return "off"
	}
	return srv.State.String()
}

// note is why a server is not running, as the runtime says it, but with
// "switched off in this session" for a server the person switched off
// with space rather than the configuration.
func (c *common) note(srv runtime.ServerSnapshot) string {
	if c.invalid[srv.Name] != "" {
		return c.invalid[srv.Name]
	}
	if c.switchedOff[srv.Name] && (srv.Note == "" || srv.Note == noteDisabledInConfig) {
		return "switched off in this session"
	}
	return present.Line(srv.Note)
}

// offText says, for the Overview, how a switched-off server came to be off
// and how to turn it on.
func (c *common) offText(srv runtime.ServerSnapshot) string {
	if c.switchedOff[srv.Name] {
		return "(switched off in this session: space turns it on)"
	}
	return "(disabled in configuration: space turns it on for this session)"
}

// invalidServers maps each server kept with an invalid definition to its
// errors, on one line.
func invalidServers(servers []config.Server) map[string]string {
	out := map[string]string{}
	for _, s := range servers {
		if s.Invalid != nil {
			out[s.Name] = present.Line(s.Invalid.Error())
		}
	}
	return out
}
