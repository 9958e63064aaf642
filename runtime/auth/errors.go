package auth

import (
	"errors"
	"fmt"
	"strings"

	"mcpdeck/jsonrpc/mcphttp"
)

// Sentinel errors. Errors from this package wrap one of them (match with
// errors.Is) and say what happened, where, and what to do next. No error
// text ever holds a token, a code or a client secret.
var (
	// ErrNeedsLogin: the server requires authorization and no usable token
	// exists (none stored, or it was rejected and could not be refreshed,
	// or more scopes are needed). The runtime shows the server as "needs
	// login"; errors.As finds the *NeedsLoginError with the details.
	ErrNeedsLogin = errors.New("needs login")
	// ErrDiscovery: the protected resource metadata or the authorization
	// server metadata could not be found or is unusable.
	ErrDiscovery = errors.New("authorization discovery failed")
	// ErrRegistration: no client identity could be had: no pre-registered
	// client, no client id metadata document support, and dynamic client
	// registration absent or refused.
	ErrRegistration = errors.New("client registration failed")
	// ErrAuthorization: the authorization response was refused: wrong
	// state, wrong issuer, an error from the authorization server, or no
	// answer before the timeout.
	ErrAuthorization = errors.New("authorization failed")
	// ErrToken: the token endpoint refused a code exchange, a refresh or a
	// client credentials request.
	ErrToken = errors.New("token request failed")
	// ErrInsufficientScope: the server still answered 403
	// insufficient_scope after a step-up authorization.
	ErrInsufficientScope = errors.New("insufficient scope")
	// ErrStorage: the token store could not be read or written.
	ErrStorage = errors.New("token storage failed")
	// ErrRedirected: a token or registration endpoint redirected to
	// another origin, and mcpdeck did not follow.
	ErrRedirected = errors.New("redirected to another origin")
	// ErrNoAuthorization: the server does not ask for authorization, so
	// there is nothing to log in to.
	ErrNoAuthorization = errors.New("server does not use MCP authorization")
)

// NeedsLoginError is the error a Transport returns when a request needs a
// token that does not exist. It also matches mcphttp.ErrUnauthorized, which
// is how the HTTP stream knows to end the session with it (the chain kept
// intact) rather than fail one request.
type NeedsLoginError struct {
	// Server is the configured server name; Resource its MCP endpoint.
	Server   string
	Resource string
	// AuthorizationServer is the issuer the login will use, when discovery
	// got that far; "" otherwise.
	AuthorizationServer string
	// Scopes are the scopes the server asked for, if it named any.
	Scopes []string
	// Reason says why no token is usable.
	Reason string
	// LoginCommand is the command that fixes it, for the message.
	LoginCommand string
}

func (e *NeedsLoginError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q (%s) needs a login", e.Server, e.Resource)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.AuthorizationServer != "" {
		fmt.Fprintf(&b, "; authorization server %s", e.AuthorizationServer)
	}
	if len(e.Scopes) > 0 {
		fmt.Fprintf(&b, "; scopes %s", strings.Join(e.Scopes, " "))
	}
	cmd := e.LoginCommand
	if cmd == "" {
		cmd = "mcpdeck auth login " + e.Server
	}
	fmt.Fprintf(&b, "; run %q", cmd)
	return b.String()
}

// Unwrap matches ErrNeedsLogin and mcphttp.ErrUnauthorized.
func (e *NeedsLoginError) Unwrap() []error {
	return []error{ErrNeedsLogin, mcphttp.ErrUnauthorized}
}

// refusedError is an error of the Transport's own (not its base's: no
// HTTP exchange failed) that also matches mcphttp.ErrUnauthorized, so the
// HTTP stream keeps it whole instead of reading it as a server it could
// not reach: the server answered, and authorizing failed.
type refusedError struct{ err error }

func (e *refusedError) Error() string   { return e.err.Error() }
func (e *refusedError) Unwrap() []error { return []error{e.err, mcphttp.ErrUnauthorized} }

// refusedToSend marks err as the Transport's refusal to send a request (see
// refusedError); an error that already matches mcphttp.ErrUnauthorized
// (a *NeedsLoginError) is returned as it is.
func refusedToSend(err error) error {
	if err == nil || errors.Is(err, mcphttp.ErrUnauthorized) {
		return err
	}
	return &refusedError{err}
}
