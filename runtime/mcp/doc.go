// Package mcp holds the era-independent and modern (2026-07-28) MCP
// protocol pieces the runtime builds on: the one list of protocol versions
// mcpdeck speaks, eras, the per-request _meta envelope, result types,
// multi round-trip requests (MRTR), the modern error codes as typed
// errors, the era decision of a stdio probe, subscriptions/listen helpers,
// cache hints and the tasks extension's types.
//
// Everything here is pure: values in, values out, no I/O and no goroutines,
// so each rule of the specification is unit-tested with plain values and
// the runtime only sequences the calls. The package may import jsonrpc (for
// its error and notification types) but never runtime.
//
// Sources: the 2026-07-28 specification (docs/specification/2026-07-28/ and
// schema/2026-07-28/schema.ts in modelcontextprotocol/modelcontextprotocol)
// and, for tasks, the io.modelcontextprotocol/tasks extension schema
// (modelcontextprotocol/experimental-ext-tasks).
package mcp
