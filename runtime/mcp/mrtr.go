package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// The methods an input request may carry.
const (
	MethodElicit     = "elicitation/create"
	MethodSample     = "sampling/createMessage"
	MethodListRoots  = "roots/list"
	DefaultMaxRounds = 8
)

// InputRequest is one server→client request embedded in an
// input_required result.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// InputRequiredWire is an input_required result as the wire carries it:
// the input requests by key (kept raw, in the server's order) and the
// requestState, byte for byte. DecodeInputRequired checks it.
type InputRequiredWire struct {
	ResultType    ResultType      `json:"resultType"`
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	RequestState  json.RawMessage `json:"requestState,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// InputRequiredResult is a decoded input_required result.
type InputRequiredResult struct {
	// Requests are the input requests by key; Keys lists the keys in the
	// order the server sent them, the order to ask a person in.
	Requests map[string]InputRequest
	Keys     []string
	// State is requestState exactly as it appeared on the wire (a JSON
	// string token), or nil when the server sent none. It is echoed back
	// byte for byte, never decoded and re-encoded.
	State json.RawMessage
}

// StateString returns the decoded requestState and whether there was one,
// for display only.
func (r InputRequiredResult) StateString() (string, bool) {
	var s string
	if r.State == nil || json.Unmarshal(r.State, &s) != nil {
		return "", false
	}
	return s, true
}

// DecodeInputRequired reads an input_required result and checks the MRTR
// rules a client can check: at least one of inputRequests and
// requestState, requestState a string, every input request a method mcpdeck
// knows with object params.
func DecodeInputRequired(result json.RawMessage) (InputRequiredResult, error) {
	var r InputRequiredWire
	if err := json.Unmarshal(result, &r); err != nil {
		return InputRequiredResult{}, fmt.Errorf("%w: %v", ErrBadInputRequired, err)
	}
	var out InputRequiredResult
	if len(r.RequestState) > 0 && !bytes.Equal(r.RequestState, []byte("null")) {
		if r.RequestState[0] != '"' {
			return out, fmt.Errorf("%w: requestState must be a string, got %s", ErrBadInputRequired, excerpt(r.RequestState))
		}
		out.State = bytes.Clone(r.RequestState)
	}
	if len(r.InputRequests) > 0 && !bytes.Equal(r.InputRequests, []byte("null")) {
		if err := json.Unmarshal(r.InputRequests, &out.Requests); err != nil {
			return out, fmt.Errorf("%w: inputRequests must map keys to requests: %v", ErrBadInputRequired, err)
		}
		out.Keys = orderedKeys(r.InputRequests)
		for _, k := range out.Keys {
			req := out.Requests[k]
			switch req.Method {
			case MethodElicit, MethodSample, MethodListRoots:
			default:
				return out, fmt.Errorf("%w: input request %q asks for %q; only %s, %s and %s may be requested", ErrBadInputRequired, k, req.Method, MethodElicit, MethodSample, MethodListRoots)
			}
			if len(req.Params) > 0 && !isObject(req.Params) && !bytes.Equal(bytes.TrimSpace(req.Params), []byte("null")) {
				return out, fmt.Errorf("%w: input request %q: params must be an object", ErrBadInputRequired, k)
			}
		}
	}
	if len(out.Requests) == 0 && out.State == nil {
		return out, fmt.Errorf("%w: it carries neither inputRequests nor requestState, so there is nothing to retry with", ErrBadInputRequired)
	}
	return out, nil
}

// RetryParams builds the params of the retry: the original params (as
// first sent, raw JSON of an object) with inputResponses and the
// byte-exact requestState. Responses are raw results by input-request key.
// A nil state removes requestState: the client must not invent one. The
// original's own inputResponses and requestState, from an earlier round,
// are replaced.
func RetryParams(original json.RawMessage, responses map[string]json.RawMessage, state json.RawMessage) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(original); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &fields); err != nil {
			return nil, fmt.Errorf("building the retry: the original params are not a JSON object: %w", err)
		}
	}
	delete(fields, "inputResponses")
	delete(fields, "requestState")
	if len(responses) > 0 {
		b, err := Marshal(responses)
		if err != nil {
			return nil, fmt.Errorf("building the retry: encoding inputResponses: %w", err)
		}
		fields["inputResponses"] = b
	}
	if state != nil {
		fields["requestState"] = state
	}
	return Marshal(fields)
}

// Marshal is json.Marshal as MCP peers write JSON: <, > and & stay
// themselves (no \u003c), so raw values (requestState above all) keep
// their bytes, and what mcpdeck hashes, counts or prints is what a client
// sends.
func Marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Round is one exchange of a multi round-trip request, for the Requests
// view: the params sent, and what came back.
type Round struct {
	N      int // 1-based
	Params json.RawMessage
	Result json.RawMessage
	Type   ResultType
	Input  *InputRequiredResult // set when Type is InputRequired
	Err    error
}

// Caller sends one request with params and returns its result. Each call
// must use a new request id: a retry is an independent request.
type Caller func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// Fulfiller answers one input request: the result object for its key
// (ElicitAccept, ElicitDecline, a roots list…). An error ends the flow.
type Fulfiller func(ctx context.Context, key string, req InputRequest) (json.RawMessage, error)

// Flow drives a request that may answer input_required: send, fulfil every
// input request, retry with a new id, inputResponses and the byte-exact
// requestState, while the answer is input_required, at most MaxRounds
// times.
type Flow struct {
	// MaxRounds bounds the retries; 0 means DefaultMaxRounds.
	MaxRounds int
	// Capabilities are those the request declared: a server asking for
	// input of another kind breaks the protocol, and the flow says so.
	Capabilities ClientCapabilities
	// OnRound, if set, sees each round as it ends.
	OnRound func(Round)
}

// Run drives the flow from the first params (already carrying _meta) and
// returns the final result with its type: Complete, or TaskResult when the
// capabilities declared tasks.
func (f Flow) Run(ctx context.Context, call Caller, params json.RawMessage, fulfil Fulfiller) (json.RawMessage, ResultType, error) {
	max := f.MaxRounds
	if max <= 0 {
		max = DefaultMaxRounds
	}
	for n := 1; ; n++ {
		res, err := call(ctx, params)
		round := Round{N: n, Params: params, Result: res, Err: err}
		if err != nil {
			f.report(round)
			return nil, "", err
		}
		round.Type, round.Err = TypeOf(res, f.Capabilities.Tasks())
		if round.Err != nil || round.Type != InputRequired {
			f.report(round)
			return res, round.Type, round.Err
		}
		ir, err := DecodeInputRequired(res)
		round.Input = &ir
		if err == nil {
			err = f.checkDeclared(ir)
		}
		if err == nil && n > max {
			err = fmt.Errorf("%w: the server still asked for input after %d rounds; stopped (a server that keeps asking is looping)", ErrTooManyRounds, max)
		}
		if err != nil {
			round.Err = err
			f.report(round)
			return nil, "", err
		}
		f.report(round)
		responses := make(map[string]json.RawMessage, len(ir.Keys))
		for _, k := range ir.Keys {
			out, err := fulfil(ctx, k, ir.Requests[k])
			if err != nil {
				return nil, "", fmt.Errorf("answering input request %q (%s): %w", k, ir.Requests[k].Method, err)
			}
			responses[k] = out
		}
		if params, err = RetryParams(params, responses, ir.State); err != nil {
			return nil, "", err
		}
	}
}

func (f Flow) report(r Round) {
	if f.OnRound != nil {
		f.OnRound(r)
	}
}

func (f Flow) checkDeclared(ir InputRequiredResult) error {
	for _, k := range ir.Keys {
		if m := ir.Requests[k].Method; !f.Capabilities.Has(m) {
			return fmt.Errorf("%w: input request %q asks for %s, which this request did not declare; the server broke the protocol", ErrBadInputRequired, k, m)
		}
	}
	return nil
}

// Elicitation decodes the params of an elicitation/create input request.
func (r InputRequest) Elicitation() (ElicitRequest, error) {
	var e ElicitRequest
	if r.Method != MethodElicit {
		return e, fmt.Errorf("%w: %s is not an elicitation", ErrBadInputRequired, r.Method)
	}
	if err := json.Unmarshal(r.Params, &e); err != nil {
		return e, fmt.Errorf("%w: elicitation params: %v", ErrBadInputRequired, err)
	}
	if e.Mode == "" {
		e.Mode = "form"
	}
	return e, nil
}

func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
