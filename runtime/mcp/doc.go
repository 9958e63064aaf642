// Package mcp is MCP on the wire as plain values: the one vocabulary of
// the protocol every other package of mcpdeck speaks. It holds the
// protocol versions and eras (EraOf), the typed params and results of
// every method both eras use (initialize, server/discover, the lists and
// their items, tools/call and content blocks, resources/read, prompts/get,
// completion/complete, logging, progress, cancellation, roots,
// elicitation, sampling), the log levels and their order, the per-request
// _meta envelope of the modern era, result types, multi round-trip
// requests (MRTR), subscriptions/listen, cache hints, the tasks
// extension's types and the modern error codes as typed errors.
//
// _meta is kept as raw JSON on every object the schema gives one, and
// annotations, schemas and capabilities mcpdeck does not model are kept
// raw too, so whatever a server sends survives a decode and an encode:
// `--json` output, the viewers, recordings and the gateway show and pass
// on what the server said. ReservedMetaKey tells the protocol's own _meta
// keys (which belong to one hop) from everyone else's (which travel).
//
// Everything here is pure: values in, values out, no I/O and no goroutines,
// so each rule of the specification is unit-tested with plain values (and
// with wire samples copied from real servers, testdata/wire) and the
// runtime only sequences the calls. The package may import jsonrpc (for
// its frame, error and notification types) but never runtime; jsonrpc and
// jsonrpc/mcphttp sit below it and know no MCP types.
//
// Sources: the 2025-11-25 and 2026-07-28 specifications
// (docs/specification/ and schema/*/schema.ts in
// modelcontextprotocol/modelcontextprotocol) and, for tasks, the
// io.modelcontextprotocol/tasks extension schema
// (modelcontextprotocol/experimental-ext-tasks).
package mcp
