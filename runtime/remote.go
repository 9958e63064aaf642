package runtime

import (
	"context"
	"net/http"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth"
)

// dialRemote connects to a remote server: Streamable HTTP, or the legacy
// HTTP+SSE transport when the configuration says "sse" or when the type was
// inferred from the url and the server answers initialize as only a legacy
// server does. The returned note says when that fallback happened; the
// overview shows it.
func (c *Controller) dialRemote(ctx context.Context, s *session, cfg config.Server) (jsonrpc.Stream, error) {
	var transport http.RoundTripper
	if c.opts.Auth != nil {
		transport = &auth.Transport{Manager: c.opts.Auth, Target: auth.TargetOf(cfg), Interactive: c.opts.InteractiveLogin}
	}
	st, err := mcphttp.Dial(ctx, mcphttp.Options{
		Transport:      transport,
		URL:            cfg.URL,
		Headers:        cfg.Headers,
		MaxMessageSize: c.opts.MaxMessageSize,
		Legacy:         cfg.Transport == config.TransportSSE,
		AutoFallback:   cfg.TransportInferred && cfg.Transport == config.TransportHTTP,
		OnFallback: func(reason string) {
			s.fallbackMu.Lock()
			s.fallback = "fell back to legacy HTTP+SSE: " + reason
			s.fallbackMu.Unlock()
		},
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
