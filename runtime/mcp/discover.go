package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mcpdeck/jsonrpc"
)

// MethodDiscover is the modern era's discovery request, and its health
// probe (2026-07-28 has no ping).
const MethodDiscover = "server/discover"

// DefaultProbeTimeout is how long a stdio server/discover probe is waited
// for alone before the client sends initialize alongside it.
const DefaultProbeTimeout = 2 * time.Second

// Tasks reports whether the server offers the tasks extension.
func (c ServerCapabilities) Tasks() bool {
	_, ok := c.Extensions[ExtensionTasks]
	return ok
}

// Filter is the subscriptions/listen filter for everything these
// capabilities announce changes of; ok is false when there is nothing to
// listen to.
func (c ServerCapabilities) Filter() (f SubscriptionFilter, ok bool) {
	f.ToolsListChanged = c.Tools != nil && c.Tools.ListChanged
	f.PromptsListChanged = c.Prompts != nil && c.Prompts.ListChanged
	f.ResourcesListChanged = c.Resources != nil && c.Resources.ListChanged
	return f, f.ToolsListChanged || f.PromptsListChanged || f.ResourcesListChanged
}

// DiscoverResult is a server/discover answer: the members the wire
// carries, and what mcpdeck reads from the rest (the identity in _meta,
// the cache hint).
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	ResultType        ResultType         `json:"resultType,omitempty"`
	Cacheable
	Meta       json.RawMessage `json:"_meta,omitempty"`
	ServerInfo *Implementation `json:"-"` // from _meta; self-reported, for display only
	Cache      CacheHint       `json:"-"`
}

// DecodeDiscover reads a server/discover result. It must list
// supportedVersions (strings, at least one) and carry a capabilities
// object: a result without them is not a DiscoverResult, whatever a
// lenient legacy server answered to an unknown method.
func DecodeDiscover(result json.RawMessage, received time.Time) (DiscoverResult, error) {
	var d DiscoverResult
	if err := json.Unmarshal(result, &d); err != nil {
		return DiscoverResult{}, fmt.Errorf("%w: server/discover: %v", ErrBadResult, err)
	}
	if len(d.SupportedVersions) == 0 || !isObject(d.Capabilities.Raw) {
		return DiscoverResult{}, fmt.Errorf("%w: server/discover: the result has no supportedVersions or no capabilities object", ErrBadResult)
	}
	d.ServerInfo, d.Cache = ServerInfo(result), d.Hint(received)
	return d, nil
}

// Verdict is the era decision after a stdio server/discover probe.
type Verdict struct {
	Era Era
	// Version is the modern revision to speak (Era Modern, Err nil).
	Version string
	// Discover is the probe's result, when it answered with one.
	Discover *DiscoverResult
	// Retry is set when the server answered -32022 naming a mutual modern
	// version: probe again (or just continue) with Version.
	Retry bool
	// Restart is set for Era Legacy when the probe cost the connection (the
	// server exited or closed stdout): start it again before initialize.
	Restart bool
	// Reason says in words why, for the overview and check.
	Reason string
	// Err is set when the server is modern but cannot be used (no mutual
	// version, an error that needs the user): do not fall back.
	Err error
}

// Decide is the era decision for a stdio probe: the result (or error) of
// server/discover, sent with the preference's newest modern version. A
// DiscoverResult or a recognised modern error means modern; any other
// error, silence (the probe's deadline) or a closed connection means
// legacy. It never keys on a single error code.
func Decide(p Preference, result json.RawMessage, callErr error, received time.Time) Verdict {
	modern := p.Offer(Modern)
	if callErr == nil {
		d, err := DecodeDiscover(result, received)
		if err != nil {
			return Verdict{Era: Legacy, Reason: "server/discover answered with something that is not a discovery result; using initialize"}
		}
		if v, ok := Mutual(modern, d.SupportedVersions); ok {
			return Verdict{Era: Modern, Version: v, Discover: &d, Reason: "server/discover answered; speaking " + v}
		}
		if p.FallsBack() {
			return Verdict{Era: Legacy, Discover: &d, Reason: fmt.Sprintf("server/discover lists only %v, none of which mcpdeck speaks; using initialize", d.SupportedVersions)}
		}
		return Verdict{Era: Modern, Discover: &d, Err: &NoMutualVersionError{Ours: modern, Theirs: d.SupportedVersions}}
	}
	if typed := AsModern(callErr); typed != nil {
		var uv *UnsupportedVersionError
		if errors.As(typed, &uv) {
			if v, err := uv.Choose(modern); err == nil {
				return Verdict{Era: Modern, Version: v, Retry: true, Reason: fmt.Sprintf("server/discover answered -32022; retrying with %s", v)}
			}
			if legacy := p.Offer(Legacy); len(legacy) > 0 && len(filterEra(uv.Supported, Modern)) == 0 {
				// A server that lists only legacy revisions speaks them
				// through initialize.
				return Verdict{Era: Legacy, Reason: fmt.Sprintf("server/discover answered -32022 listing only legacy revisions %v; using initialize", uv.Supported)}
			}
			return Verdict{Era: Modern, Err: &NoMutualVersionError{Ours: modern, Theirs: uv.Supported}}
		}
		return Verdict{Era: Modern, Err: typed, Reason: "server/discover answered with a modern error"}
	}
	var closed *jsonrpc.ClosedError
	switch {
	case errors.As(callErr, &closed):
		return Verdict{Era: Legacy, Restart: true, Reason: "the server closed the connection on server/discover (a legacy server that quits on unknown requests); restarting it for initialize"}
	case errors.Is(callErr, context.DeadlineExceeded), errors.Is(callErr, jsonrpc.ErrTimeout):
		return Verdict{Era: Legacy, Reason: "no answer to server/discover in time; using initialize"}
	}
	var rpc *jsonrpc.Error
	if errors.As(callErr, &rpc) {
		return Verdict{Era: Legacy, Reason: fmt.Sprintf("server/discover answered error %d (%s); using initialize", rpc.Code, rpc.Message)}
	}
	// Cancelled by the caller, or a failure to send: not evidence of an era.
	return Verdict{Era: Unknown, Err: callErr, Reason: "the probe did not complete"}
}
