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
//   - a remembered dynamic registration the authorization server forgot
//     (invalid_client) dropped and registered again, once;
//   - refresh before expiry and on 401, step-up on 403 insufficient_scope
//     (once per request), re-registration when the server names a new
//     authorization server (SEP-2352);
//   - grants without a person: client credentials (with a secret or a
//     private_key_jwt assertion, RFC 7523), enterprise-managed
//     authorization (SEP-990: RFC 8693 token exchange at the identity
//     provider, then the JWT bearer grant) and workload identity
//     (SEP-1933);
//   - DPoP-bound tokens (RFC 9449) when the server's challenge asks;
//   - the 2025-03-26 revision's discovery for servers without protected
//     resource metadata (the origin's metadata, else /authorize, /token,
//     /register);
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
// clients, and performs the RFC 8693 token exchange of enterprise-managed
// authorization; its auth package supplies the RFC 8414 / OpenID
// discovery order. github.com/go-jose/go-jose/v4 signs client assertions
// (private_key_jwt) and DPoP proofs.
// go-sdk's AuthorizationCodeHandler is not used: it tries a client id
// metadata document before a pre-registered client (the specification
// says the reverse), keeps tokens only in memory, rejects a matching iss
// that the metadata did not advertise (the 2026-07-28 table accepts it),
// and demands the protected resource metadata name the exact server URL
// (real servers often publish their origin; the TypeScript SDK accepts
// that too, as this package does). Tokens live in the OS keyring through
// github.com/zalando/go-keyring, pure Go on every platform.
//
// Concurrency: no lock is held across I/O. Refreshes, discoveries and
// logins are flights (flight.go), one per server however many requests
// need them, each waiter leaving on its own context; Status reads only
// memory and the store. Token and registration requests follow redirects
// only within their origin (sameOriginRedirects).
//
// Nothing here writes to the terminal, and no token, code or client secret
// appears in an error: every such value goes to Options.OnSecret as it is
// issued or loaded, so the caller's scrubber knows it before any output.
package auth
