package runtime

import (
	"context"
	"encoding/json"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/telemetry"
)

// The request path. Every request a session sends (a tool call, a prompt,
// a read, a completion, a subscription, a list page, a health probe, the
// listen stream, a task's polls, the handshake) goes down one chain of
// links, each in its own file with one job, composed the way go-sdk
// composes its sending middleware (mcp/shared.go: addMiddleware over
// sendingMethodHandler):
//
//	span      chain_span.go      the telemetry span around the whole request, every request
//	track     chain_track.go     the request in flight: Cancel by any id, progress routing
//	envelope  chain_envelope.go  the params on the wire: the era's _meta, token, trace context
//	rounds    chain_rounds.go    MRTR: input_required answered and retried (modern)
//	task      chain_task.go      a task the answer created, followed to its end
//	round     chain_round.go     one round trip: timeout, progress extension, request events
//	transmit  (below)            the connection's Call
//
// A link that concerns only a caller's requests (the tracking, the
// request events) passes the session's own by (request.forCaller), as the
// Requests view has them; the span link spans every request, the
// session's own too (a trace shows the handshake, pings and list pages).
// One added for every request goes in the list below, once.
var links = []link{spanLink, trackLink, envelopeLink, roundsLink, taskLink, roundLink}

// request is one request on its way down the chain. Its entry point fills
// the first group; each link reads what it needs and sets what it owns.
type request struct {
	method string
	// params are the caller's; the envelope link puts them on the wire.
	params map[string]any
	// wire is what the connection sends as params: set by the envelope
	// link, or by an entry whose params are ready as they are (the
	// handshake's, which no envelope may touch).
	wire any

	forCaller bool          // made for a caller of the Controller: spanned, tracked, its rounds published
	target    string        // what it acts on, for the span: a tool, prompt or resource
	label     string        // names it in the outstanding table (the tool)
	timeout   time.Duration // per round trip, extended by progress; 0: ctx alone bounds it
	// total, when set (CallRequest.Timeout), bounds the whole request, a
	// task it runs included; see taskFollower.deadline.
	total     time.Duration
	task      bool         // legacy: augmented with a task (the entry adds it to params)
	quiet     bool         // no notifications/cancelled when abandoned (initialize, the era probe)
	stream    bool         // the answer ends a long-lived stream (listen): its span is no operation's duration
	onStarted func(uint64) // told each round's id, for a caller
	onID      func(uint64) // told each id before it is sent (the round link's, a poll's, the listen stream's)

	// Set on the way down.
	meta   map[string]any  // _meta keys besides the envelope: trace context, the caller's (span, envelope)
	span   *telemetry.Span // nil when telemetry is off (span)
	active *activeCall     // the request in flight (track)
	next   string          // what the last answer asks for: "", input_required or task (round)
	taskID string          // the task that produced the result (task)
}

// sender sends a request on from where it stands in the chain.
type sender func(ctx context.Context, r *request) (json.RawMessage, error)

// link is one step of the chain: it does its job for r and calls next
// for the rest of the chain (or answers without it).
type link func(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error)

// buildChain composes the chain over the connection, outermost link
// first, once per session.
func (s *session) buildChain() {
	send := s.transmit
	for i := len(links) - 1; i >= 0; i-- {
		l, next := links[i], send
		send = func(ctx context.Context, r *request) (json.RawMessage, error) { return l(ctx, s, r, next) }
	}
	s.chain = send
}

// transmit is the end of the chain: the request on the connection.
func (s *session) transmit(ctx context.Context, r *request) (json.RawMessage, error) {
	opts := make([]jsonrpc.CallOption, 0, 3)
	if r.label != "" {
		opts = append(opts, jsonrpc.WithLabel(r.label))
	}
	if r.quiet {
		opts = append(opts, jsonrpc.WithoutCancelNotification())
	}
	if r.onID != nil {
		opts = append(opts, jsonrpc.WithIDFunc(r.onID))
	}
	return s.conn.Call(ctx, r.method, r.wire, opts...)
}

// rawResult is a caller's request's final result and how it got there.
type rawResult struct {
	body   json.RawMessage
	took   time.Duration
	id     uint64 // the first round's id: the request's row
	rounds int    // round trips of the request itself (MRTR retries count)
	task   string // the task that produced the result, if one did
}

// ask sends a caller's request down the chain: a round trip; in the
// modern era the rounds of a multi round-trip request; a task (either
// era) followed to its terminal state. Cancelling ctx, or
// Controller.Cancel with any of its ids, cancels it on the wire
// (notifications/cancelled, or tasks/cancel for a task).
func (s *session) ask(ctx context.Context, r *request) (rawResult, error) {
	r.forCaller = true
	if r.target == "" {
		r.target = r.label
	}
	if r.target == "" {
		r.target, _ = r.params["uri"].(string)
	}
	if r.target == "" {
		r.target, _ = r.params["name"].(string)
	}
	start := time.Now()
	body, err := s.chain(ctx, r)
	res := rawResult{body: body, took: time.Since(start), task: r.taskID}
	if ac := r.active; ac != nil {
		res.id, res.rounds = ac.first.Load(), int(ac.rounds.Load())
	}
	return res, err
}

// mrtrMethods are the requests that may answer input_required, and so
// may run as a task in the modern era.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}
