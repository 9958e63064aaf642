// Package record owns mcpdeck's session recordings: the Recorder that
// writes a running session's events to an append-only JSON Lines file, the
// Reader that decodes such a file back into the runtime's event types, and
// what is built on a recording: the state as of any moment (replay), the
// comparison of recorded answers with a live server's (--against) and of
// two servers' lists (diff), both by name (listing.go, schemadiff.go), the
// recorded server's answers served again (Mock, mock.go: replay --serve),
// and an HTTP Archive of the HTTP exchanges (--har).
//
// The recorder is an event consumer like the TUI: it subscribes to the
// runtime lossily, with its own bounded buffer, so writing never slows the
// runtime; what the buffer drops is counted and written as a gap line.
// Events reach it already scrubbed of secrets, and every line is scrubbed
// again with the configured servers' scrubbers before it is written.
//
// The file format is documented in FORMAT.md beside this file. Every kind
// of event is named in one registry (registry.go): adding an event type to
// package runtime means adding one line there, and a test fails until it is.
package record
