// Package ui is mcpdeck's terminal face: a Bubble Tea program that watches
// MCP servers' health, switches MCP on and off, calls tools through a form
// generated from their schemas and streams notifications, logs and traffic.
//
// One root Model owns layout, focus and routing; panes and tabs render from
// a shared common struct and never perform I/O. Modals stack: one a modal
// asked for (the resource a tool result links) is drawn over it, and
// closing it returns there; any other waits until the stack is closed. Every runtime operation
// runs in a tea.Cmd and comes back as a message; runtime events reach the
// program through Attach's forwarding goroutine, which batches them and
// reads the new snapshot off the event loop. Rendering is throttled: event
// batches only mark the frame stale and at most one frame tick is pending
// (about 30 frames a second), while keys render at once so typing stays
// instant. Lists draw only their visible rows.
//
// The Check tab runs the compatibility check of the selected server
// through Options.Check, in a command whose items stream back one
// message each; the check starts its own copy of the server, so the live
// connection is untouched. Text is typed into the bubbles textinput
// (filters, form fields) and textarea (raw JSON) widgets.
//
// When the session serves MCP to other clients (Options.Serving, the CLI's
// --serve), a tenth tab lists the gateway's clients; AttachGateway brings
// the gateway's events and client list in as Attach does the runtime's,
// and the Requests tab names the client each forwarded request is for.
//
// The notification stream merges the five events a notification can
// arrive as (LogMessage, Progress, ListChanged, ResourceUpdated and, for
// every other method, NotificationReceived); the runtime publishes each
// notification as exactly one of them.
package ui
