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
	// Bearer is set when a Bearer challenge was present at all.
	Bearer bool
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
	for _, ch := range cs {
		if ch.Scheme != "bearer" {
			continue
		}
		c.Bearer = true
		c.ResourceMetadata = ch.Params["resource_metadata"]
		c.Scopes = strings.Fields(ch.Params["scope"])
		c.Error = ch.Params["error"]
		c.Description = ch.Params["error_description"]
		break
	}
	return c
}
