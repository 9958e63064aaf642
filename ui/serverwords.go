package ui

import (
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// invalidText is the file:line:col errors of a server whose configuration
// is invalid (it never starts), on one line; "" for any other server.
func (c *common) invalidText(srv runtime.ServerSnapshot) string {
	if srv.State != runtime.StateInvalid {
		return ""
	}
	return present.Line(srv.Note)
}

// switchedOff reports whether the person switched the server off in this
// session, against its configuration.
func switchedOff(srv runtime.ServerSnapshot) bool { return !srv.Enabled && srv.ConfigEnabled }

// stateWord is the STATE column: "invalid" for a server whose
// configuration is invalid (it never starts), "off" for one switched off,
// else the runtime's state.
func (c *common) stateWord(srv runtime.ServerSnapshot) string {
	switch {
	case srv.State == runtime.StateInvalid:
		return "invalid"
	case !srv.Enabled:
		return "off"
	}
	return srv.State.String()
}

// note is why a server is not running: its configuration error, that the
// person switched it off, that its configuration disables it, or what the
// runtime says (a missing input).
func (c *common) note(srv runtime.ServerSnapshot) string {
	switch {
	case srv.State == runtime.StateInvalid:
		return c.invalidText(srv)
	case srv.Note != "":
		return present.Line(srv.Note)
	case switchedOff(srv):
		return "switched off in this session"
	case !srv.Enabled:
		return "disabled in configuration"
	}
	return ""
}

// offText says, for the Overview, how a switched-off server came to be off
// and how to turn it on.
func (c *common) offText(srv runtime.ServerSnapshot) string {
	if switchedOff(srv) {
		return "(switched off in this session: space turns it on)"
	}
	return "(disabled in configuration: space turns it on for this session)"
}
