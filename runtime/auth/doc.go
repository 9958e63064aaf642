// Package auth is mcpdeck's MCP authorization client (OAuth 2.1, protocol
// revisions 2025-11-25 and 2026-07-28): it turns a server's 401 challenge
// into a stored, refreshed bearer token.
//
// It owns the whole client side of the specification's flow:
//   - WWW-Authenticate parsing (ParseChallenge) and discovery (Discover):
//     protected resource metadata (RFC 9728) from the challenge's URL, then
//     the path-aware and root well-known URLs; authorization server metadata
//     (RFC 8414, then OpenID Connect Discovery) in the specification's
//     order; S256 PKCE support is required;
//   - the client identity, in the specification's order: a pre-registered
//     client from the server's "oauth" block, a Client ID Metadata Document
//     where the authorization server supports them, dynamic client
//     registration (RFC 7591), remembered per authorization server;
//   - the authorization code flow with PKCE S256, state, the resource
//     parameter (RFC 8707) on the authorization and every token request,
//     and the iss check (RFC 9207), through a loopback redirect listener on
//     127.0.0.1 that takes one response and closes; the browser is opened
//     with $BROWSER or xdg-open/open and the URL is always reported too;
//   - refresh before expiry and on 401, step-up on 403 insufficient_scope
//     (once per request), and the client credentials grant;
//   - token storage in the OS keyring, or a private file where none is
//     reachable (Store);
//   - the HTTP integration point, Transport, an http.RoundTripper for
//     mcphttp.Options.Transport, whose *NeedsLoginError (ErrNeedsLogin)
//     lets the runtime show a server as "needs login";
//   - Probe, the authorization posture `mcpdeck check` reports.
//
// Libraries, and why: golang.org/x/oauth2 builds the authorization URL
// with PKCE, exchanges codes, refreshes and runs the client credentials
// grant (x/oauth2/clientcredentials), which are easy to get subtly wrong by
// hand. go-sdk's oauthex parses WWW-Authenticate, fetches and validates
// authorization server metadata (issuer match, URL schemes) and registers
// clients; its auth package supplies the RFC 8414 / OpenID discovery order.
// go-sdk's AuthorizationCodeHandler is not used: it tries a client id
// metadata document before a pre-registered client (the specification
// says the reverse), keeps tokens only in memory, rejects a matching iss
// that the metadata did not advertise (the 2026-07-28 table accepts it),
// and demands the protected resource metadata name the exact server URL
// (real servers often publish their origin; the TypeScript SDK accepts
// that too, as this package does). Tokens live in the OS keyring through
// github.com/zalando/go-keyring, pure Go on every platform.
//
// Nothing here writes to the terminal, and no token, code or client secret
// appears in an error: every such value goes to Options.OnSecret as it is
// issued or loaded, so the caller's scrubber knows it before any output.
package auth
