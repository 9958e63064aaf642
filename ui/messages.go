package ui

import (
	"encoding/json"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// Messages the program exchanges with its commands and the forwarder.
// Results of runtime calls carry everything the model needs, because a
// command must never touch model state itself.

// eventsMsg is a batch of runtime events; snap is set when the batch
// announced a new snapshot (the forwarder read it off the event loop).
type eventsMsg struct {
	events []runtime.Event
	snap   *runtime.Snapshot
}

// frameMsg ends the frame interval: render if anything changed.
type frameMsg struct{}

// clockMsg refreshes ages and uptimes; Attach sends it once a second.
// snap is set when events since the last tick changed what the snapshot
// holds (pings, counters, outstanding requests, stderr) without a
// publication: the live part of the snapshot is re-read at most once a
// tick, and not at all while nothing happens.
type clockMsg struct{ snap *runtime.Snapshot }

type enabledMsg struct {
	on  bool
	err error
}

type serverToggledMsg struct {
	name string
	on   bool
	err  error
}

type reconnectedMsg struct {
	name string
	err  error
}

type reloadedMsg struct {
	plan runtime.Plan
	err  error
	// cfg is the configuration read. pending, when not empty, are its
	// project files whose content is not approved: nothing was applied yet.
	cfg     *config.Config
	pending []config.File
	// configured says MCP was off: the configuration was replaced, and
	// nothing started or stopped.
	configured bool
}

// callIntentMsg asks the root model to send a tool call (from the form).
type callIntentMsg struct {
	tool       runtime.Tool
	args       json.RawMessage
	noValidate bool
}

type callDoneMsg struct {
	tool runtime.Tool
	args json.RawMessage
	res  *runtime.Result
	err  error
}

type cancelledMsg struct {
	server string
	id     uint64
	ok     bool
}

type shutdownDoneMsg struct{ err error }

// trustIntentMsg answers the approval dialog of a project file.
type trustIntentMsg struct {
	file    config.File
	approve bool
	reload  bool // asked by a reload, not at start
}

type trustedMsg struct {
	file   config.File
	err    error
	reload bool
}

// confirmedMsg is a yes from a confirmation dialog.
type confirmedMsg struct{ action confirmAction }

type confirmAction int

const (
	confirmDisable confirmAction = iota // switch MCP off with calls outstanding
)

// elicitMsg is a server's elicitation waiting for an answer on reply.
type elicitMsg struct {
	id    uint64
	req   runtime.ElicitRequest
	reply chan<- runtime.ElicitResponse
}

// elicitGoneMsg: the server cancelled elicitation id, or its connection
// closed; the modal must close unanswered.
type elicitGoneMsg struct{ id uint64 }
