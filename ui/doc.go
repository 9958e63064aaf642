// Package ui is mcpdeck's terminal face: a Bubble Tea program that watches
// MCP servers' health, switches MCP on and off, calls tools through a form
// generated from their schemas and streams notifications, logs and traffic.
//
// One root Model owns layout, focus and routing; panes and tabs render from
// a shared common struct and never perform I/O. Every runtime operation
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
// The notification stream merges the five events a notification can
// arrive as (LogMessage, Progress, ListChanged, ResourceUpdated and, for
// every other method, NotificationReceived); the runtime publishes each
// notification as exactly one of them.
package ui
