// Package mcphttp owns mcpdeck's remote MCP transports: Streamable HTTP
// (type "http" / "streamable-http") and the legacy HTTP+SSE transport of
// protocol 2024-11-05 (type "sse"). Both are jsonrpc.Stream implementations,
// so the same jsonrpc.Conn, runtime, TUI and compatibility check run over
// the network exactly as they do over stdio.
//
// The stream looks at each outgoing frame (a small decode of id and method)
// to decide how to send it:
//
//   - a request is POSTed on its own goroutine and its answer, a JSON body
//     or an SSE stream, is pushed into the Read queue; whatever else that
//     stream carries (progress, server requests) is pushed too. A dropped
//     response stream is resumed with GET and Last-Event-ID, never treated
//     as a cancellation;
//   - a notification or a response is POSTed synchronously until the server
//     acknowledges it, so notifications/initialized reaches the server before
//     any later request;
//   - initialize also captures MCP-Session-Id and, from its result, the
//     negotiated protocolVersion sent as MCP-Protocol-Version afterwards
//     (so no option is needed for it); other writes wait for it, since they
//     need the session id;
//   - the standalone GET stream is opened in the Write of
//     notifications/initialized, just before that notification is POSTed
//     (as the official Go SDK client does; see openStandalone for why), so
//     it is open before any further request; it is reopened with backoff
//     and Last-Event-ID when it drops, and a 405 means the server has none;
//   - notifications/cancelled also aborts the cancelled request's HTTP
//     exchange: nobody waits for that answer any more.
//
// Failures come in two kinds. A failure that concerns one request (a 5xx, a
// network error on one POST after the session exists, an oversized answer)
// fails that request alone: the stream synthesizes a JSON-RPC error response
// for its id (code CodeTransportError). A failure that ends the session
// (session expired, credentials rejected, server unreachable before the
// session exists, the legacy SSE stream closing) makes Read return an error
// wrapping one of this package's sentinels; jsonrpc.Conn turns it into the
// close cause every outstanding call sees.
//
// Configured headers are sent on every request (POST, GET, DELETE) and their
// values never appear in an error: errors name the header, not its value,
// and server text quoted in an error has any configured value blanked out.
// URLs in errors lose their query and user info, which may carry tokens (the
// legacy transport's session id travels in the query). Redirects to another
// origin are never followed, so the headers never reach it: the exchange
// fails with ErrRedirected naming the origin (put the final URL in
// mcp.json). Same-origin redirects that keep the method (307, 308, or any
// for GET) are followed, up to five; see CheckRedirect. A server's SSE
// retry: is clamped to [100 ms, 60 s].
//
// Requests a client would never send (the compatibility check's probes: an
// unknown revision, a missing _meta, a mismatched Mcp-Method, a forged
// token) go through Stream.SendRaw, so they keep every rule above: the same
// client and redirect policy, the caller's Transport (MCP authorization),
// the headers, the size limit and the SSE parser. Probe is one of them.
package mcphttp
