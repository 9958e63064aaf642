package check

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/proc"
)

// authorization reports the MCP authorization an HTTP server asks for and
// checks its side of it: the 401 names its resource metadata, the
// metadata names an authorization server, and a token for another
// resource is rejected.
func (c *checker) authorization() (Status, string) {
	if c.srv.Transport == config.TransportStdio {
		return Skip, "a stdio server needs no authorization"
	}
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer client.CloseIdleConnections()
	p, err := auth.Probe(ctx, c.srv.URL, auth.ProbeOptions{Client: client})
	switch {
	case err != nil:
		return Skip, "could not probe its authorization: " + err.Error()
	case !p.Required:
		return Pass, "none: the server answers without authorization"
	case len(p.Problems) > 0:
		return Fail, "OAuth, but: " + strings.Join(p.Problems, "; ")
	}
	var as []string
	if p.Metadata != nil {
		as = p.Metadata.AuthorizationServers
	}
	return Pass, fmt.Sprintf("OAuth: its 401 names its resource metadata, which names %s; a token it never issued is rejected (HTTP %d)",
		count(len(as), "authorization server", "authorization servers")+" ("+strings.Join(as, ", ")+")", p.ForeignTokenStatus)
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
