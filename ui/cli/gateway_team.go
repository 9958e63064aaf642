package cli

import (
	"fmt"
	"net/http"
	"net/url"

	"mcpdeck/config"
	"mcpdeck/runtime/gateway"
)

// httpServing is how the HTTP gateway is served: where, with which token
// (or OAuth, gw.Auth), and whether old clients get the legacy HTTP+SSE
// transport.
type httpServing struct {
	addr      string
	token     string
	gw        *config.Gateway
	legacySSE bool
}

// metadataURL is the protected resource metadata URL of a gateway served
// at served (its /mcp URL), under the resource it is known as.
func metadataURL(a *config.GatewayAuth, served string) string {
	resource := a.Resource
	if resource == "" {
		resource = served
	}
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	u.Path, u.RawQuery, u.Fragment = gateway.MetadataPath(resource), "", ""
	return u.String()
}

// mountTeam adds the team gateway's endpoints to mux and its settings to
// opts: with gateway.auth, the OAuth verifier and its resource metadata
// (at the path-aware and the root well-known URL, the two places clients
// look); with --legacy-sse, the HTTP+SSE transport at /sse and /message,
// behind the same checks.
func (hs httpServing) mountTeam(mux *http.ServeMux, g *gateway.Gateway, opts *gateway.HTTPOptions, served string) error {
	if hs.gw != nil && hs.gw.Auth != nil {
		a := hs.gw.Auth
		resource := a.Resource
		if resource == "" {
			resource = served
		} else if u, err := url.Parse(resource); err == nil && !gateway.IsLoopback(u.Hostname()) {
			// Clients reach the gateway under this name (a proxy in front):
			// their Host header is not a loopback name.
			opts.LoopbackOnly = false
		}
		auth, err := gateway.NewJWTAuth(gateway.JWTOptions{Issuer: a.Issuer, Resource: resource, JWKSURL: a.JWKSURL,
			IdentityClaim: a.IdentityClaim, Scopes: a.Scopes})
		if err != nil {
			return fmt.Errorf("gateway.auth at %s: %w", a.Pos, err)
		}
		opts.Auth = auth
		mux.Handle(gateway.MetadataPath(resource), auth.MetadataHandler())
		if root := "/.well-known/oauth-protected-resource"; gateway.MetadataPath(resource) != root {
			mux.Handle(root, auth.MetadataHandler())
		}
	}
	if hs.legacySSE {
		legacy := g.LegacySSEHandler(*opts, "/message")
		mux.Handle("/sse", legacy)
		mux.Handle("/message", legacy)
	}
	return nil
}

// openAudit opens the audit log that --audit FILE or gateway.audit asks
// for (the flag's file wins; the block's other settings stay); nil when
// neither does. Each server's configured secrets are scrubbed from the
// arguments it is given, in "scrubbed" mode. A failed write is told to
// onError, once until a write succeeds again.
func openAudit(cfg *config.Config, file string, onError func(error)) (*gateway.Audit, error) {
	var ac config.GatewayAudit
	if cfg.Gateway != nil && cfg.Gateway.Audit != nil {
		ac = *cfg.Gateway.Audit
	}
	if file != "" {
		ac.File = file
	}
	if ac.File == "" {
		return nil, nil
	}
	scrubbers := map[string]*config.Scrubber{}
	for _, s := range cfg.Servers {
		scrubbers[s.Name] = s.Scrubber()
	}
	a, err := gateway.NewAudit(gateway.AuditOptions{File: ac.File, Arguments: ac.Arguments, MaxSize: int64(ac.MaxSizeMB) << 20, MaxFiles: ac.MaxFiles,
		Scrub:   func(server string, b []byte) []byte { return scrubbers[server].Bytes(b) },
		OnError: onError})
	if err != nil {
		return nil, fmt.Errorf("--audit %s: %w", ac.File, err)
	}
	return a, nil
}
