package jsonrpc

import (
	"encoding/json"
	"time"
)

// jsonRaw converts bytes to the library's raw message type.
func jsonRaw(b []byte) json.RawMessage { return json.RawMessage(b) }

// Request is a request or notification received from the peer.
type Request struct {
	ID     string // the JSON id as written on the wire; empty for notifications
	Method string
	Params json.RawMessage
}

// Notification is a message without an id received from the peer. It never
// completes a request.
type Notification struct {
	Method   string
	Params   json.RawMessage
	Received time.Time

	seq uint64 // its place among the notifications read: 1, 2, …
}

// Direction says which way a frame travelled.
type Direction int

const (
	// Out is a frame we sent.
	Out Direction = iota
	// In is a frame we received.
	In
)

func (d Direction) String() string {
	if d == In {
		return "in"
	}
	return "out"
}

// FrameKind classifies a traced frame.
type FrameKind int

// Frame kinds.
const (
	KindRequest FrameKind = iota
	KindNotification
	KindResult
	KindError
)

func (k FrameKind) String() string {
	return [...]string{"request", "notification", "result", "error"}[k]
}

// TraceRawLimit bounds the copy of a frame kept for tracing; Size always
// records the full size.
const TraceRawLimit = 64 << 10

// Frame is one traced JSON-RPC message, for the traffic view.
type Frame struct {
	Dir    Direction
	Time   time.Time
	Kind   FrameKind
	Method string // for responses, the method of the matched request if known
	ID     string // empty for notifications
	Size   int
	Raw    []byte // at most TraceRawLimit bytes
}

// AnomalyKind classifies something a peer did wrong that did not end the
// connection.
type AnomalyKind int

// Anomaly kinds.
const (
	// AnomalyNoise: a line that is not JSON at all (a stray print on stdout).
	AnomalyNoise AnomalyKind = iota
	// AnomalyInvalid: JSON that is not a valid JSON-RPC message.
	AnomalyInvalid
	// AnomalyUnknownResponse: a response whose id matches no request we sent.
	AnomalyUnknownResponse
	// AnomalyLateResponse: a response to a request we had already cancelled.
	AnomalyLateResponse
	// AnomalyNullID: an error response whose id is null, which a peer sends
	// when it could not read a request's id. It answers no request.
	AnomalyNullID
	// AnomalyUndecodable: a response to an outstanding request that could
	// not be decoded (nested beyond the JSON decoder's limit, say); that
	// request fails with ErrUndecodable.
	AnomalyUndecodable
)

func (k AnomalyKind) String() string {
	return [...]string{"stdout noise", "invalid message", "response with unknown id", "late response", "error with null id", "undecodable response"}[k]
}

// NoiseLimit bounds the copy of a noise line reported in an Anomaly.
const NoiseLimit = 512

// Anomaly reports a misbehaviour that was skipped rather than fatal.
type Anomaly struct {
	Kind   AnomalyKind
	Time   time.Time
	ID     string // for responses
	Detail string // why it was rejected
	Raw    []byte // a truncated copy (NoiseLimit bytes)
}

// Stats counts what a connection saw. Read with Conn.Stats.
type Stats struct {
	FramesIn, FramesOut    uint64
	Notifications          uint64 // delivered to OnNotification
	DroppedNotifications   uint64 // dropped because the consumer fell behind
	LateResponses          uint64
	UnknownResponses       uint64
	NoiseLines             uint64 // noise and invalid messages
	CancelNotificationSent uint64
}

// Outstanding describes a request awaiting its response.
type Outstanding struct {
	ID     uint64
	Method string
	Label  string // caller's label, e.g. the tool name
	Start  time.Time
}
