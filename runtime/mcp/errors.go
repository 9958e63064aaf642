package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"mcpdeck/jsonrpc"
)

// Sentinel errors. The typed errors below wrap one of them; match with
// errors.Is.
var (
	// ErrHeaderMismatch: -32020, the HTTP headers and the body disagree or
	// a required header is missing (HTTP only).
	ErrHeaderMismatch = errors.New("header mismatch")
	// ErrMissingCapability: -32021, the request needs a client capability
	// that was not declared.
	ErrMissingCapability = errors.New("missing required client capability")
	// ErrUnsupportedVersion: -32022, the server does not speak the version
	// the request declared.
	ErrUnsupportedVersion = errors.New("unsupported protocol version")
	// ErrNoMutualVersion: the server and mcpdeck have no revision in common.
	ErrNoMutualVersion = errors.New("no mutual protocol version")
	// ErrUnknownResultType: a result's resultType is one mcpdeck does not
	// know (or a task without the tasks extension declared).
	ErrUnknownResultType = errors.New("unknown result type")
	// ErrBadInputRequired: an input_required result breaks the MRTR rules.
	ErrBadInputRequired = errors.New("invalid input_required result")
	// ErrTooManyRounds: a multi round-trip request kept asking for input
	// past the bound.
	ErrTooManyRounds = errors.New("too many input rounds")
	// ErrBadResult: a result could not be decoded as the type it claims.
	ErrBadResult = errors.New("malformed result")
	// ErrBadPreference: a protocol setting is not auto, legacy, modern or a
	// revision mcpdeck speaks.
	ErrBadPreference = errors.New("invalid protocol setting")
)

// The error codes the 2026-07-28 revision defines (-32020…-32099 is
// reserved for the specification).
const (
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
	// CodeResourceNotFound is the legacy resource-not-found code; modern
	// servers answer -32602 instead, and both mean the same.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired is 2025-11-25's answer to a request that
	// needs URL elicitations first: data.elicitations lists them, each
	// with its elicitationId (gone in 2026-07-28).
	CodeURLElicitationRequired = -32042
)

// HeaderMismatchError is a -32020 answer: what the server said disagrees
// between the HTTP headers and the body.
type HeaderMismatchError struct {
	Message string
	Data    json.RawMessage // the server's data, if any
}

func (e *HeaderMismatchError) Error() string {
	return fmt.Sprintf("%v (-32020): %s; the tool's x-mcp-header annotations may have changed: list the tools again and retry", ErrHeaderMismatch, e.Message)
}

// Unwrap matches ErrHeaderMismatch.
func (e *HeaderMismatchError) Unwrap() error { return ErrHeaderMismatch }

// MissingCapabilityError is a -32021 answer.
type MissingCapabilityError struct {
	Message string
	// Required is data.requiredCapabilities: the capabilities the server
	// needs, as it sent them.
	Required json.RawMessage
}

func (e *MissingCapabilityError) Error() string {
	need := strings.Join(e.Names(), ", ")
	if need == "" {
		need = string(e.Required)
	}
	return fmt.Sprintf("%v (-32021): the server needs the client capabilities %s, which mcpdeck did not declare for this request (%s); enable them (elicitation needs the TUI or --elicitation, sampling the TUI or --sampling, roots need --root)",
		ErrMissingCapability, need, e.Message)
}

// Unwrap matches ErrMissingCapability.
func (e *MissingCapabilityError) Unwrap() error { return ErrMissingCapability }

// Names lists the top-level capability names required (elicitation,
// sampling, roots, extensions/ID…), sorted as the server sent them.
func (e *MissingCapabilityError) Names() []string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(e.Required, &caps) != nil {
		return nil
	}
	var names []string
	for _, k := range orderedKeys(e.Required) {
		if k == "extensions" {
			var ext map[string]json.RawMessage
			if json.Unmarshal(caps[k], &ext) == nil && len(ext) > 0 {
				for _, id := range orderedKeys(caps[k]) {
					names = append(names, "extensions/"+id)
				}
				continue
			}
		}
		names = append(names, k)
	}
	return names
}

// UnsupportedVersionError is a -32022 answer: the server lists what it
// speaks in Supported.
type UnsupportedVersionError struct {
	Message   string
	Supported []string
	Requested string
}

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("%v (-32022): the server does not speak %s; it speaks %s", ErrUnsupportedVersion, e.Requested, strings.Join(e.Supported, ", "))
}

// Unwrap matches ErrUnsupportedVersion.
func (e *UnsupportedVersionError) Unwrap() error { return ErrUnsupportedVersion }

// Choose returns the version to retry with: the first of ours the server
// supports. When there is none the error wraps ErrNoMutualVersion and says
// what both sides speak.
func (e *UnsupportedVersionError) Choose(ours []string) (string, error) {
	if v, ok := Mutual(ours, e.Supported); ok {
		return v, nil
	}
	return "", &NoMutualVersionError{Ours: ours, Theirs: e.Supported}
}

// NoMutualVersionError says that no revision is common to both sides.
type NoMutualVersionError struct {
	Ours, Theirs []string
}

// The message says what each side speaks; what to do about it is the
// faces' hint (ui/present), which knows whether a flag or mcp.json sets it.
func (e *NoMutualVersionError) Error() string {
	theirs := orNone(e.Theirs)
	if len(e.Theirs) > 0 && !slices.ContainsFunc(e.Theirs, func(v string) bool { return EraOf(v) == Modern }) {
		theirs = "only the legacy revisions (" + theirs + ")"
	}
	return fmt.Sprintf("%v: the server speaks %s and mcpdeck, under this protocol setting, %s",
		ErrNoMutualVersion, theirs, orNone(e.Ours))
}

// Unwrap matches ErrNoMutualVersion.
func (e *NoMutualVersionError) Unwrap() error { return ErrNoMutualVersion }

func orNone(vs []string) string {
	if len(vs) == 0 {
		return "nothing"
	}
	return strings.Join(vs, ", ")
}

// AsModern returns the typed error for a modern error answer: err (or what
// it wraps) is a *jsonrpc.Error with code -32020, -32021 or -32022 whose
// data has the shape the specification gives. It returns nil for anything
// else, including those codes with malformed data: such an answer is not
// recognisable as modern.
func AsModern(err error) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return nil
	}
	return FromCode(rpc.Code, rpc.Message, rpc.Data)
}

// FromCode builds the typed error for a modern error code and its data, or
// returns nil when the code is not a modern one or the data does not fit.
// mcphttp's probe hands the runtime a JSON-RPC error body in these three
// parts.
func FromCode(code int64, message string, data []byte) error {
	switch code {
	case CodeHeaderMismatch:
		return &HeaderMismatchError{Message: message, Data: json.RawMessage(data)}
	case CodeMissingCapability:
		var d MissingCapabilityData
		if json.Unmarshal(data, &d) != nil || !isObject(d.Required) {
			return nil
		}
		return &MissingCapabilityError{Message: message, Required: d.Required}
	case CodeUnsupportedVersion:
		var d UnsupportedVersionData
		if json.Unmarshal(data, &d) != nil || d.Supported == nil {
			return nil
		}
		return &UnsupportedVersionError{Message: message, Supported: d.Supported, Requested: d.Requested}
	}
	return nil
}

// MissingCapabilityData is the data of a -32021 error.
type MissingCapabilityData struct {
	Required json.RawMessage `json:"requiredCapabilities"`
}

// UnsupportedVersionData is the data of a -32022 error (and of the
// -32602 "Unsupported protocol version" of the 2025 revisions).
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested,omitempty"`
}

// IsModernCode reports whether code is one of the error codes the
// 2026-07-28 revision defines.
func IsModernCode(code int64) bool {
	return code == CodeHeaderMismatch || code == CodeMissingCapability || code == CodeUnsupportedVersion
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

// orderedKeys returns the keys of a JSON object in document order, so
// messages list things as the server sent them.
func orderedKeys(raw json.RawMessage) []string {
	var keys []string
	for _, m := range jsonrpc.Members(raw) {
		keys = append(keys, m.Key)
	}
	return keys
}
