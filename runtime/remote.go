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
		URL:            cfg.URL,
		Headers:        cfg.Headers,
		MaxMessageSize: c.opts.MaxMessageSize,
		// Each exchange is an event while a recorder wants them, for
		// recordings' HTTP Archives. The tracer sees requests before the
		// authorization transport adds a token.
		Client: mcphttp.TraceClient(transport, cfg.Headers, func() bool { return c.bus.http.Load() > 0 }, func(x mcphttp.Exchange) {
			x.RequestBody, x.ResponseBody, x.Err = s.redact.str(x.RequestBody), s.redact.str(x.ResponseBody), s.redact.str(x.Err)
			x.URL = s.redact.str(x.URL)
			c.bus.publish(HTTPExchange{EventHeader: EventHeader{Time: x.Started, Server: cfg.Name}, Exchange: x})
		}),
		Legacy:       cfg.Transport == config.TransportSSE,
		AutoFallback: cfg.TransportInferred && cfg.Transport == config.TransportHTTP,
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
