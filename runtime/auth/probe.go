package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
)

// Posture is the authorization a server showed `mcpdeck check`.
type Posture struct {
	// Required: the server answered an unauthenticated request 401.
	// When false the server needs no authorization and nothing else is set.
	Required bool `json:"required"`
	// Challenge is the 401's challenge.
	Challenge *Challenge `json:"challenge,omitempty"`
	// ResourceMetadataInHeader: the 401 carried resource_metadata, as the
	// specification asks (clients then need no well-known guessing).
	ResourceMetadataInHeader bool `json:"resourceMetadataInHeader"`
	// Metadata is what discovery found, nil if it failed (DiscoveryError).
	Metadata       *Metadata `json:"metadata,omitempty"`
	DiscoveryError string    `json:"discoveryError,omitempty"`
	// NamesAuthorizationServer: the protected resource metadata names at
	// least one authorization server.
	NamesAuthorizationServer bool `json:"namesAuthorizationServer"`
	// RejectsForeignToken says whether the server answered 401 to a token
	// not meant for it: ProbeOptions.ForeignToken when given (a token for
	// another resource), else a random token it never issued.
	RejectsForeignToken bool   `json:"rejectsForeignToken"`
	ForeignTokenStatus  int    `json:"foreignTokenStatus"`
	ForeignTokenKind    string `json:"foreignTokenKind"` // "other-resource" or "unknown"
	// Problems lists what falls short of the specification, one line each.
	Problems []string `json:"problems,omitempty"`
}

// ProbeOptions configure Probe.
type ProbeOptions struct {
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// ForeignToken is a valid token issued for another resource; the
	// server must reject it (audience validation). Empty means a random
	// token is sent instead, which only shows the server checks tokens.
	ForeignToken string
}

// Probe examines the authorization posture of the HTTP MCP server at
// serverURL: whether it requires authorization, whether its 401 carries
// resource_metadata, whether the metadata names an authorization server,
// and whether it rejects a token meant for another resource. It returns an
// error only when the server cannot be reached; shortcomings are Problems.
func Probe(ctx context.Context, serverURL string, opts ProbeOptions) (*Posture, error) {
	client := opts.Client
	if client == nil {
		client = http.DefaultClient
	}
	ch, _, err := probe(ctx, client, serverURL)
	if err != nil {
		return nil, err
	}
	p := &Posture{}
	if ch == nil || ch.Status != http.StatusUnauthorized {
		return p, nil
	}
	p.Required, p.Challenge = true, ch
	p.ResourceMetadataInHeader = ch.ResourceMetadata != ""
	if !ch.Bearer && !ch.DPoP {
		p.Problems = append(p.Problems, "the 401 has no Bearer (or DPoP) challenge in WWW-Authenticate")
	} else if !p.ResourceMetadataInHeader {
		p.Problems = append(p.Problems, "the 401's WWW-Authenticate challenge has no resource_metadata; clients must guess the well-known URLs")
	}
	md, err := Discover(ctx, client, serverURL, ch, "")
	if err != nil {
		p.DiscoveryError = err.Error()
		p.Problems = append(p.Problems, "discovery failed: "+err.Error())
	} else {
		p.Metadata = md
		p.NamesAuthorizationServer = len(md.AuthorizationServers) > 0 && !md.Legacy
		switch {
		case md.Guessed:
			p.Problems = append(p.Problems, "no protected resource metadata (RFC 9728) and no authorization server metadata at its origin (RFC 8414); clients can only guess the 2025-03-26 default endpoints /authorize, /token, /register")
		case md.Legacy:
			p.Problems = append(p.Problems, "no protected resource metadata (RFC 9728); the server relies on the 2025-03-26 fallback")
		}
	}
	tok, kind := opts.ForeignToken, "other-resource"
	if tok == "" {
		tok, kind = "mcpdeck-check-"+rand.Text(), "unknown"
	}
	p.ForeignTokenKind = kind
	status, err := withToken(ctx, client, serverURL, tok)
	if err != nil {
		return nil, err
	}
	p.ForeignTokenStatus = status
	p.RejectsForeignToken = status == http.StatusUnauthorized
	if !p.RejectsForeignToken {
		what := "a token it never issued"
		if kind == "other-resource" {
			what = "a token issued for another resource"
		}
		p.Problems = append(p.Problems, "the server accepted "+what+" (HTTP "+http.StatusText(status)+"); it must validate the token's audience and answer 401")
	}
	return p, nil
}

// withToken sends the probe with a bearer token and returns the status.
func withToken(ctx context.Context, client *http.Client, serverURL, tok string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probeBody))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		return 0, errors.Join(ErrDiscovery, rootCause(err))
	}
	discard(resp)
	return resp.StatusCode, nil
}
