package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// dialRemote connects to a remote server. Unless the protocol setting
// rules the modern era out, it first sends a modern server/discover (the
// HTTP probe): a result or a modern error means a 2026-07-28 server, spoken
// to with the modern Streamable HTTP; anything else means a legacy one:
// Streamable HTTP, or the legacy HTTP+SSE transport when the configuration
// says "sse" or when the type was inferred from the url and the server
// answers initialize as only a legacy server does. The session's decided
// records the era; fallback notes how the legacy transport was chosen.
func (c *Controller) dialRemote(ctx context.Context, s *session, cfg config.Server) (jsonrpc.Stream, error) {
	pref, err := c.preference(cfg)
	if err != nil {
		return nil, err
	}
	opts := c.httpOptions(cfg, s.redact)
	s.remote = true
	remembered, known := s.recall()
	auto := pref.Probes() && pref.FallsBack() // only auto consults the era memory
	rememberedLegacy := auto && known && remembered.Era == mcp.Legacy
	switch {
	case cfg.Transport == config.TransportSSE && !pref.FallsBack():
		return nil, fmt.Errorf("%w: the server is configured as legacy HTTP+SSE (\"type\": \"sse\"), which speaks no 2026-07-28, but the protocol setting is %s", ErrUnsupportedVersion, pref)
	case cfg.Transport != config.TransportSSE && pref.Probes() && !rememberedLegacy:
		n, err := s.probeHTTP(ctx, opts, pref)
		if err != nil {
			return nil, err
		}
		n.decision = EraLegacyError
		if n.era == mcp.Modern {
			n.decision = EraDiscoverAnswered
			switch {
			case !pref.FallsBack():
				n.decision, n.reason = EraPinned, joinReason("the protocol setting is "+pref.String(), n.reason)
			case known && remembered.Era == mcp.Modern:
				n.decision, n.reason = EraRemembered, joinReason(rememberedReason(remembered), n.reason)
				s.fromMemory = true
			}
			s.decided = &n
			opts.Modern = &mcphttp.ModernOptions{ParamHeaders: s.lists.paramHeaders}
			return mcphttp.Dial(ctx, opts)
		}
		if !pref.FallsBack() {
			return nil, fmt.Errorf("%w: %s, but the protocol setting is %s: this server speaks only the legacy revisions", ErrUnsupportedVersion, n.reason, pref)
		}
		s.decided = &n
	case rememberedLegacy && cfg.Transport != config.TransportSSE:
		s.decided = &negotiated{era: mcp.Legacy, reason: rememberedReason(remembered) + "; initialize without a probe", decision: EraRemembered}
		s.fromMemory = true
	default:
		reason := "initialize (the protocol setting is " + pref.String() + ")"
		if cfg.Transport == config.TransportSSE {
			reason = "initialize (configured as legacy HTTP+SSE, \"type\": \"sse\")"
		}
		s.decided = &negotiated{era: mcp.Legacy, reason: reason, decision: EraPinned}
	}
	opts.Legacy = cfg.Transport == config.TransportSSE
	opts.AutoFallback = cfg.TransportInferred && cfg.Transport == config.TransportHTTP
	opts.OnFallback = func(reason string) {
		note := "fell back to legacy HTTP+SSE: " + reason
		s.fallback.Store(&note)
	}
	return mcphttp.Dial(ctx, opts)
}

// probeHTTP sends the modern probe, retrying with a mutual version after
// -32022, and decides the era.
func (s *session) probeHTTP(ctx context.Context, opts mcphttp.Options, pref mcp.Preference) (negotiated, error) {
	version := pref.Offer(mcp.Modern)[0]
	for attempt := 0; ; attempt++ {
		frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": mcp.MethodDiscover, "params": s.envelope(version).Apply(nil)})
		if err != nil {
			return negotiated{}, err
		}
		end := s.probeSpan(ctx)
		res, err := mcphttp.Probe(ctx, opts, frame)
		end(res, err)
		if err != nil {
			return negotiated{}, err
		}
		if !res.Modern {
			return negotiated{era: mcp.Legacy, reason: res.Reason}, nil
		}
		if res.Error != nil {
			typed := mcp.FromCode(res.Error.Code, res.Error.Message, res.Error.Data)
			var uv *mcp.UnsupportedVersionError
			if !errors.As(typed, &uv) {
				return negotiated{}, failedIn(mcp.MethodDiscover, typed)
			}
			v, err := uv.Choose(pref.Offer(mcp.Modern))
			switch {
			case err != nil && pref.FallsBack() && len(modernOf(uv.Supported)) == 0:
				return negotiated{era: mcp.Legacy, reason: fmt.Sprintf("server/discover answered -32022 listing only legacy revisions %v; using initialize", uv.Supported)}, nil
			case err != nil:
				return negotiated{}, negotiationError(err)
			case attempt >= maxVersionRetries:
				return negotiated{}, fmt.Errorf("%w: server/discover kept answering -32022, last naming %s", ErrUnsupportedVersion, v)
			}
			version = v
			continue
		}
		d, err := mcp.DecodeDiscover(res.Result, time.Now())
		if err != nil {
			return negotiated{era: mcp.Legacy, reason: "server/discover answered with something that is not a discovery result; using initialize"}, nil
		}
		v, ok := mcp.Mutual(pref.Offer(mcp.Modern), d.SupportedVersions)
		if !ok {
			if pref.FallsBack() {
				return negotiated{era: mcp.Legacy, reason: fmt.Sprintf("server/discover lists only %v, none of which mcpdeck speaks; using initialize", d.SupportedVersions)}, nil
			}
			return negotiated{}, negotiationError(&mcp.NoMutualVersionError{Ours: pref.Offer(mcp.Modern), Theirs: d.SupportedVersions})
		}
		if v != version {
			version = v // discovery named a better mutual version: ask with it
			if attempt < maxVersionRetries {
				continue
			}
		}
		return negotiated{era: mcp.Modern, version: v, discover: &d, reason: res.Reason + "; speaking " + v}, nil
	}
}

func modernOf(versions []string) []string {
	var out []string
	for _, v := range versions {
		if mcp.EraOf(v) == mcp.Modern {
			out = append(out, v)
		}
	}
	return out
}
