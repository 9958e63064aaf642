package check

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/proc"
)

// authProbe is what the authorization item POSTs: a ping, which creates no
// session on a server that needs no authorization.
const authProbe = `{"jsonrpc":"2.0","id":"mcpdeck-check-auth","method":"ping"}`

// authorization reports the MCP authorization an HTTP server asks for and
// checks its side of it: the 401 names its resource metadata, the metadata
// names an authorization server, and a token it never issued is rejected
// with 401. Its requests go on a stream of their own, dialed like every
// other (the redirect policy, the size limit) but without the configured
// headers or a stored token: what a client that has not logged in sends.
func (c *checker) authorization() (Status, string) {
	if c.srv.Transport == config.TransportStdio {
		return Skip, "a stdio server needs no authorization"
	}
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	s, err := mcphttp.Dial(ctx, mcphttp.Options{URL: c.srv.URL, MaxMessageSize: c.maxMessage()})
	if err != nil {
		return Skip, "could not probe its authorization: " + err.Error()
	}
	defer s.Close()
	a, err := s.SendRaw(ctx, mcphttp.RawRequest{Frame: []byte(authProbe)})
	if err != nil {
		return Skip, "could not probe its authorization: " + err.Error()
	}
	if a.Status != http.StatusUnauthorized {
		return Pass, "none: the server answers without authorization"
	}
	ch := auth.ParseChallenge(a.Status, a.Header)
	if !ch.Bearer {
		if names := mcphttp.HeaderNames(c.srv.Headers); names != "" {
			return Pass, "static credentials: without the configured headers (" + names + ") it answers 401, and it asks for no OAuth"
		}
		return Warn, "it answers 401 without a Bearer challenge (WWW-Authenticate): a client cannot tell how to authorize; configure the credentials it needs under \"headers\", or, for OAuth, answer with WWW-Authenticate: Bearer resource_metadata=\"…\""
	}
	var problems []string
	if ch.ResourceMetadata == "" {
		problems = append(problems, "the 401's WWW-Authenticate challenge has no resource_metadata; clients must guess the well-known URLs")
	}
	md, err := auth.Discover(ctx, s.Client(), c.srv.URL, c.srv.Headers, ch, "")
	switch {
	case err != nil:
		problems = append(problems, "discovery failed: "+err.Error())
	case md.Legacy:
		problems = append(problems, "no protected resource metadata (RFC 9728); the server relies on the 2025-03-26 fallback")
	}
	forged, err := s.SendRaw(ctx, mcphttp.RawRequest{Frame: []byte(authProbe), Header: map[string]string{"Authorization": "Bearer mcpdeck-check-" + rand.Text()}})
	if err != nil {
		return Skip, "could not send it a token it never issued: " + err.Error()
	}
	st, rejected := forgedToken(forged.Status)
	if len(problems) > 0 {
		st = Fail // every other shortcoming leaves a client unable to log in
	}
	if st != Pass {
		if forged.Status == http.StatusUnauthorized {
			return st, "OAuth, but: " + strings.Join(problems, "; ")
		}
		return st, "OAuth, but: " + strings.Join(append(problems, rejected), "; ")
	}
	var as []string
	if md != nil {
		as = md.AuthorizationServers
	}
	return Pass, fmt.Sprintf("OAuth: its 401 names its resource metadata, which names %s; %s",
		count(len(as), "authorization server", "authorization servers")+" ("+strings.Join(as, ", ")+")", rejected)
}

// forgedToken judges the status a server answered a token it never issued
// with: 401 is the one answer that tells a client to refresh or log in
// again (RFC 6750 invalid_token).
func forgedToken(status int) (Status, string) {
	text := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	switch {
	case status == http.StatusUnauthorized:
		return Pass, "a token it never issued is rejected (" + text + ")"
	case status/100 == 2:
		return Fail, "it accepted a token it never issued (" + text + "); it must validate the token's audience and answer 401"
	case status == http.StatusForbidden:
		return Warn, "it rejected a token it never issued, but with " + text + ", which says the token is valid but not allowed: answer 401 (invalid_token), so clients know to refresh it or log in again"
	}
	return Fail, "it rejected a token it never issued wrongly, with " + text + ": answer 401 with a Bearer challenge (error=\"invalid_token\"), so clients know to refresh it or log in again"
}

// environment says which of mcpdeck's environment variables a stdio
// server received (names only), and whether mcpdeck can promise it will
// not outlive mcpdeck.
func (c *checker) environment() (Status, string) {
	if c.srv.Transport != config.TransportStdio {
		return Skip, "a remote server gets no environment from mcpdeck"
	}
	names := c.srv.ProcessEnvNames(os.Environ())
	what := fmt.Sprintf("it received %s (names only; values are never shown): %s",
		count(len(names), "variable", "variables"), strings.Join(names, ", "))
	if err := proc.WatchdogErr(); err != nil {
		return Warn, what + "; but the watchdog that kills servers when mcpdeck is killed did not start: " + err.Error()
	}
	return Pass, what
}
