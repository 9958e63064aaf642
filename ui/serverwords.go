package ui

import (
	"strings"

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

// The STATE column's words for servers that do not run, each distinct,
// since "disabled" is what a person reads as the configuration's flag:
//
//	disabled      its configuration disables it (space switches it on for the session)
//	switched off  the person switched it off in this session
//	MCP off       it is enabled, and would run, but MCP is off (m)
//	not started   MCP is on and it is enabled, but it was not started: it
//	              is not approved, or needs an input only VS Code can give
//	invalid       its configuration is invalid: it never starts
//
// Every other state is the runtime's own word (starting, ready, failed…).
const (
	wordDisabled    = "disabled"
	wordSwitchedOff = "switched off"
	wordMCPOff      = "MCP off"
	wordNotStarted  = "not started"
	wordInvalid     = "invalid"
)

// replayMCPOff is what a replay says where the recorded MCP was off: a
// fact of the recording, where a live session says that m switches it on.
const replayMCPOff = "MCP was off at this point of the recording"

// mcpOff reports whether MCP is off in the snapshot shown.
func (c *common) mcpOff() bool { return c.snap == nil || !c.snap.Enabled }

// stateWord is the STATE column (see the words above).
func (c *common) stateWord(srv runtime.ServerSnapshot) string {
	idle := srv.State == runtime.StateDisabled || srv.State == runtime.StateStopped
	switch {
	case srv.State == runtime.StateInvalid:
		return wordInvalid
	case switchedOff(srv) && idle:
		return wordSwitchedOff
	case !srv.Enabled && idle:
		return wordDisabled
	case idle && c.mcpOff():
		return wordMCPOff
	case srv.State == runtime.StateDisabled:
		return wordNotStarted
	}
	return srv.State.String()
}

// stateSentence is the state said after the server's name in a sentence
// ("No tools: demo has failed."): the column's word, said in full, in
// English ("needs a login", never "is needs login").
func (c *common) stateSentence(srv runtime.ServerSnapshot) string {
	switch w := c.stateWord(srv); w {
	case wordDisabled:
		return "is disabled in its configuration"
	case wordMCPOff:
		return "is not running (MCP is off)"
	case wordSwitchedOff, wordNotStarted:
		return "is " + w
	default:
		return present.StateSentence(srv.State)
	}
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

// offReconnectText answers R on a server that is off: there is nothing to
// reconnect, so it says why it is off and that space switches it on, which
// connects it.
func (c *common) offReconnectText(srv runtime.ServerSnapshot) string {
	if switchedOff(srv) {
		return srv.Name + " is switched off in this session: press space to switch it on, and it connects"
	}
	return srv.Name + " is disabled in its configuration: press space to switch it on for this session, and it connects"
}

// heldBack says, for a server that is ready but whose capabilities wait for
// the servers switched on with it, what the wait is for ("its tools show
// once slow is ready too"); "" for any other server. what names the
// capability ("tools", "prompts", "resources").
func (c *common) heldBack(srv runtime.ServerSnapshot, what string) string {
	if !srv.HeldBack || c.snap == nil {
		return ""
	}
	var waiting []string
	for _, s := range c.snap.Servers {
		if s.State.Busy() {
			waiting = append(waiting, s.Name)
		}
	}
	switch {
	case len(waiting) == 0:
		return srv.Name + " is ready; its " + what + " show in a moment"
	case len(waiting) > 3:
		waiting = append(waiting[:3], present.Count(len(waiting)-3, "other", "others"))
	}
	verb := " is"
	if len(waiting) > 1 {
		verb = " are"
	}
	return srv.Name + " is ready; its " + what + " show once " + strings.Join(waiting, ", ") + verb + " ready too, as servers switched on together publish together"
}
