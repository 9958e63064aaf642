package auth

import (
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Challenge is what a 401 or 403 said about authorization: the Bearer
// challenge of its WWW-Authenticate header (RFC 6750 §3, RFC 9728 §5.1).
type Challenge struct {
	// Status is the HTTP status that carried the challenge.
	Status int
	// Bearer is set when a Bearer challenge was present at all; DPoP when
	// a DPoP challenge was (RFC 9449 §7.1: the server wants tokens bound
	// to a key, presented with a proof), whose parameters are then read
	// when there is no Bearer challenge. Nonce is the DPoP-Nonce header.
	Bearer bool
	DPoP   bool
	Nonce  string
	// ResourceMetadata is the protected resource metadata URL
	// (resource_metadata), "" when the server did not name one.
	ResourceMetadata string
	// Scopes are the scopes the challenge names (scope), authoritative for
	// the request that met it.
	Scopes []string
	// Error and Description are the error and error_description params
	// ("invalid_token", "insufficient_scope", ...). Server text: display it
	// only through a sanitiser.
	Error       string
	Description string
}

// UseNonce reports a DPoP challenge asking for the proof to be sent again
// with the server's nonce (RFC 9449 §9).
func (c *Challenge) UseNonce() bool {
	return c != nil && c.DPoP && c.Error == "use_dpop_nonce" && c.Nonce != ""
}

// InsufficientScope reports a 403 step-up challenge.
func (c *Challenge) InsufficientScope() bool {
	return c != nil && c.Status == http.StatusForbidden && c.Error == "insufficient_scope"
}

// ParseChallenge reads the WWW-Authenticate headers of a response with
// go-sdk's RFC 9110 parser. A malformed header yields a Challenge without
// parameters rather than an error: the status alone still means "log in",
// and discovery falls back to the well-known URLs.
func ParseChallenge(status int, h http.Header) *Challenge {
	c := &Challenge{Status: status}
	cs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		return c
	}
	c.Nonce = h.Get("DPoP-Nonce")
	var chosen *oauthex.Challenge
	for i, ch := range cs {
		switch ch.Scheme {
		case "bearer":
			c.Bearer = true
			chosen = &cs[i]
		case "dpop":
			c.DPoP = true
			if chosen == nil {
				chosen = &cs[i]
			}
		}
	}
	if chosen != nil {
		c.ResourceMetadata = chosen.Params["resource_metadata"]
		c.Scopes = strings.Fields(chosen.Params["scope"])
		c.Error = chosen.Params["error"]
		c.Description = chosen.Params["error_description"]
	}
	return c
}
