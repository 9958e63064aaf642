package jsonrpc

import (
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/internal/clip"
)

// Sentinel errors. Match them with errors.Is: the concrete errors below
// carry the details (cause, id, reason) and wrap one of these.
var (
	// ErrClosed: the connection is closed; outstanding and later calls fail with it.
	ErrClosed = errors.New("connection closed")
	// ErrCancelled: the caller cancelled the request (context or Cancel).
	ErrCancelled = errors.New("request cancelled")
	// ErrTimeout: the request ran out of time. It also matches ErrCancelled,
	// since a timed-out request is cancelled on the wire.
	ErrTimeout = errors.New("request timed out")
	// ErrMessageTooLarge: a peer sent a message over the configured maximum.
	ErrMessageTooLarge = errors.New("message too large")
	// ErrClosedByClient is the cause recorded when we closed the connection ourselves.
	ErrClosedByClient = errors.New("closed by the client")
	// ErrUndecodable: the response to a request arrived but could not be
	// decoded (for example nested deeper than the decoder allows).
	ErrUndecodable = errors.New("response could not be decoded")
)

// Standard JSON-RPC and MCP error codes.
const (
	CodeParseError     = jsonrpc2.CodeParseError
	CodeInvalidRequest = jsonrpc2.CodeInvalidRequest
	CodeMethodNotFound = jsonrpc2.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc2.CodeInvalidParams
	CodeInternalError  = jsonrpc2.CodeInternalError
)

// ClosedError is returned for a request that could not complete because the
// transport closed. Cause says why: the server's exit status, EOF, an
// oversized message, a decode error, an HTTP status, or ErrClosedByClient.
type ClosedError struct {
	Method string
	Cause  error
}

func (e *ClosedError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("%s: connection closed", e.Method)
	}
	return fmt.Sprintf("%s: connection closed: %v", e.Method, e.Cause)
}

// Unwrap lets errors.Is match both ErrClosed and the cause.
func (e *ClosedError) Unwrap() []error { return []error{ErrClosed, e.Cause} }

// CancelledError is returned for a request cancelled locally; a
// notifications/cancelled was sent to the peer with Reason.
type CancelledError struct {
	ID      uint64
	Method  string
	Reason  string
	Timeout bool
	Cause   error // context.Cause of the call's context
	// Arrived is what the peer sent while the request waited in vain:
	// misaddressed responses, null-id errors, notifications. A timeout
	// with something here is most likely a server that answered wrongly,
	// not a slow one; for a cancel by the caller it is kept but not told.
	Arrived Arrivals
	// Unwritten: the request was not written in full when ctx ended: its
	// write (or the one before it, which held the turn to write) was still
	// blocked on a peer that does not read.
	Unwritten bool
}

// StoppedReading is how the error of a timed-out request that could not
// be written words it (CancelledError.Unwritten); the faces match it to
// word their hint.
const StoppedReading = "the server stopped reading its input"

func (e *CancelledError) Error() string {
	msg := fmt.Sprintf("%s (id %d) cancelled: %s", e.Method, e.ID, e.Reason)
	// What arrived matters only when the wait ran out: a user's cancel
	// says nothing about the server.
	switch {
	case e.Timeout && e.Unwritten:
		// Not a slow answer: the request never reached the server.
		msg += "; " + StoppedReading + ": the request could not be written (the write was still blocked when time ran out)"
	case e.Timeout && !e.Arrived.Empty():
		msg += "; no response with id " + FormatID(e.ID) + " arrived, but meanwhile the server sent " + e.Arrived.String()
	}
	return msg
}

// UndecodableError is returned for a request whose response arrived but
// could not be decoded: the request fails at once instead of waiting for
// a timeout, and the line is not mistaken for stdout noise.
type UndecodableError struct {
	ID     uint64
	Method string
	Size   int   // bytes of the response
	Err    error // the decoder's error
}

func (e *UndecodableError) Error() string {
	return fmt.Sprintf("%s (id %d): the server's response (%d bytes) could not be decoded: %v", e.Method, e.ID, e.Size, e.Err)
}

// Unwrap matches ErrUndecodable and the decoder's error.
func (e *UndecodableError) Unwrap() []error { return []error{ErrUndecodable, e.Err} }

// Unwrap matches ErrCancelled, ErrTimeout for timeouts, and the context cause.
func (e *CancelledError) Unwrap() []error {
	errs := []error{ErrCancelled}
	if e.Timeout {
		errs = append(errs, ErrTimeout)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// Error is a JSON-RPC error object, received from or sent to a peer.
type Error struct {
	Code    int64
	Message string
	Data    []byte // raw JSON, may be nil
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("%s (code %d, data %s)", e.Message, e.Code, truncate(e.Data, 200))
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// NewError returns an error object with a code and message, for handlers.
func NewError(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) toWire() *jsonrpc2.Error {
	out := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		raw := jsonRaw(e.Data)
		out.Data = &raw
	}
	return out
}

// truncate quotes b, cut between characters past n bytes, with its size.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", clip.Prefix(string(b), n), len(b))
}
