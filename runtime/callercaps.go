package runtime

import (
	"context"

	"mcpdeck/runtime/mcp"
)

// callerCapsKey is the context key of WithCallerCapabilities.
type callerCapsKey struct{}

// WithCallerCapabilities returns ctx whose requests to a 2026-07-28
// server declare what may be asked during them as their caller can answer
// it: that revision carries the client's capabilities on each request,
// and a request made for one caller (a gateway client, whose
// capabilities caps are) is that caller's, not every caller's. Its
// elicitation, sampling and roots are the caller's, joined with what
// mcpdeck answers itself for a caller that cannot: the roots it offers
// the server, an Elicitor or Sampler that gives answers (DeclineElicitor
// and DeclineSampler only decline; with Options.Operator a person answers
// URL mode too). A kind mcpdeck does not declare to the server at all
// stays undeclared; its extensions stay as mcpdeck's. A session-era
// server is declared capabilities once, at initialize, for every caller
// (Options.Relay).
func WithCallerCapabilities(ctx context.Context, caps mcp.ClientCapabilities) context.Context {
	return context.WithValue(ctx, callerCapsKey{}, caps)
}

// declaredFor returns the capabilities a request made with ctx declares:
// the session's, or for a modern request made for a caller
// (WithCallerCapabilities) the caller's, as that function says.
func (s *session) declaredFor(ctx context.Context) mcp.ClientCapabilities {
	own := s.declared()
	caller, ok := ctx.Value(callerCapsKey{}).(mcp.ClientCapabilities)
	if !ok || !s.modern() {
		return own
	}
	c := s.c
	out := own
	out.Roots, out.Sampling, out.Elicitation = nil, nil, nil
	if own.Roots != nil && (caller.Roots != nil || len(c.rootsFor(s.name, s.cfg.Roots)) > 0) {
		out.Roots = &mcp.RootsCapability{} // no list_changed in this revision
	}
	if own.Sampling != nil {
		switch sm := c.sampler(); {
		case sm != nil && !declines(sm):
			out.Sampling = own.Sampling
		case caller.Sampling != nil:
			out.Sampling = &mcp.SamplingCapability{Tools: caller.Sampling.Tools}
		}
	}
	if own.Elicitation != nil {
		e := c.elicitor()
		answers := e != nil && !declines(e)
		form := answers || caller.Elicits("form")
		url := own.Elicitation.URL != nil && (answers && c.opts.Operator || caller.Elicits("url"))
		if form || url {
			out.Elicitation = &mcp.ElicitationCapability{}
			if form {
				out.Elicitation.Form = &mcp.Empty{}
			}
			if url {
				out.Elicitation.URL = &mcp.Empty{}
			}
		}
	}
	return out
}

// declines reports whether one of mcpdeck's own answerers only declines
// (the headless default), which is no capability to declare for a caller.
func declines(answerer any) bool {
	switch answerer.(type) {
	case DeclineElicitor, *DeclineElicitor, DeclineSampler, *DeclineSampler:
		return true
	}
	return false
}
