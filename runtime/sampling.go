package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
	"unicode/utf8"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// SampleRequest is a server's sampling/createMessage request: the
// messages, system prompt, model preferences, token bound and tools it
// wants a model to answer. mcpdeck has no model: a person answers it (the
// TUI's dialog), or a canned reply (--sampling FILE), or the client of a
// gateway whose call caused it.
type SampleRequest struct {
	Server string
	Params mcp.CreateMessageParams
	// Raw are the params as the server sent them, for passing them on.
	Raw json.RawMessage
}

// SampleResponse answers a sampling request: a reply, or a decline.
type SampleResponse struct {
	Result mcp.CreateMessageResult
	// Declined refuses the request: a legacy server gets the error a client
	// answers when its user rejects sampling (-1); a 2026-07-28 server's
	// request ends, as its revision says, without a retry.
	Declined bool
	// Reason says why, for the person reading mcpdeck's diagnostics and
	// the server's error; it carries no secret.
	Reason string
	// By names who answered, for the event that records the decision:
	// "the operator", "--sampling FILE", a gateway client.
	By string
}

// Sampler answers sampling requests. It may block until a person answers;
// ctx ends when the server cancels or the connection closes.
type Sampler interface {
	Sample(ctx context.Context, req SampleRequest) (SampleResponse, error)
}

// SamplingResponder is the optional part of a CallResponder that answers
// sampling for the caller (the gateway's clients). Return ErrNotAnswered
// to leave it to the Controller's Sampler.
type SamplingResponder interface {
	Sample(ctx context.Context, req SampleRequest) (SampleResponse, error)
}

// DeclineSampler declines every sampling request (--sampling decline).
type DeclineSampler struct{}

// Sample declines.
func (DeclineSampler) Sample(context.Context, SampleRequest) (SampleResponse, error) {
	return SampleResponse{Declined: true, Reason: "mcpdeck runs headless with --sampling decline", By: "--sampling decline"}, nil
}

// CannedSampler answers every sampling request with the same reply
// (--sampling FILE).
type CannedSampler struct {
	Reply  mcp.CreateMessageResult
	Source string // the file, for the record of who answered
}

// Sample answers with the canned reply.
func (c CannedSampler) Sample(context.Context, SampleRequest) (SampleResponse, error) {
	return SampleResponse{Result: c.Reply, By: "--sampling " + c.Source}, nil
}

// CannedModel is the model a canned text reply names.
const CannedModel = "mcpdeck-canned"

// ReadCannedReply reads --sampling FILE: a JSON object is a whole
// CreateMessageResult ({role, content, model, stopReason?}), checked;
// anything else is the text of a one-block reply (one final newline
// dropped), naming the model CannedModel.
func ReadCannedReply(path string) (CannedSampler, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return CannedSampler{}, fmt.Errorf("reading the canned sampling reply: %w", err)
	}
	return ParseCannedReply(data, path)
}

// ParseCannedReply is ReadCannedReply on data read from source.
func ParseCannedReply(data []byte, source string) (CannedSampler, error) {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return CannedSampler{}, fmt.Errorf("the canned sampling reply %s is empty; write the reply's text in it, or a whole CreateMessageResult as JSON", source)
	case !utf8.Valid(data):
		return CannedSampler{}, fmt.Errorf("the canned sampling reply %s is not UTF-8 text", source)
	case trimmed[0] == '{':
		var r mcp.CreateMessageResult
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return CannedSampler{}, fmt.Errorf("the canned sampling reply %s starts with { but is not a CreateMessageResult: %v; give {\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"…\"},\"model\":\"…\"}, or plain text", source, err)
		}
		if err := r.Check(); err != nil {
			return CannedSampler{}, fmt.Errorf("the canned sampling reply %s: %w", source, err)
		}
		return CannedSampler{Reply: r, Source: source}, nil
	}
	text := string(data)
	text = trimSuffix(trimSuffix(text, "\n"), "\r")
	return CannedSampler{Reply: mcp.TextReply(text, CannedModel), Source: source}, nil
}

func trimSuffix(s, suffix string) string {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)]
	}
	return s
}

// SetSampler plugs in the sampling handler (the TUI's dialog, a canned
// reply). Servers connected afterwards see the sampling capability.
func (c *Controller) SetSampler(s Sampler) { c.samplerBox.Store(&samplerBox{s}) }

type samplerBox struct{ s Sampler }

func (c *Controller) sampler() Sampler {
	if b := c.samplerBox.Load(); b != nil {
		return b.s
	}
	return nil
}

// samplingDeclined is the error of a declined sampling request; it is
// ErrDeclined, and a legacy server receives it as the user's rejection.
type samplingDeclined struct{ reason string }

// SamplingDeclined begins the message of a declined sampling request's
// error, which a face reads to word its hint (an ErrorInfo keeps only the
// kind, declined, and the message).
const SamplingDeclined = "the sampling request was declined"

func (e *samplingDeclined) Error() string {
	if e.reason == "" {
		return SamplingDeclined
	}
	return SamplingDeclined + ": " + e.reason
}

func (e *samplingDeclined) Unwrap() error { return ErrDeclined }

// wire is the error a legacy server receives.
func (e *samplingDeclined) wire() *jsonrpc.Error {
	msg := "User rejected sampling request"
	if e.reason != "" {
		msg += " (" + e.reason + ")"
	}
	return &jsonrpc.Error{Code: mcp.CodeUserRejected, Message: msg}
}

// sample answers one sampling request of this server, the one path for
// both eras (a legacy server's request, an input request of a modern
// server's input_required answer or task): the caller's responder first
// (r, the gateway client whose call it belongs to), then the Controller's
// Sampler. It returns the reply, or an error: *samplingDeclined when it
// was declined, ErrUnsupported when nobody can answer.
func (s *session) sample(ctx context.Context, r CallResponder, params json.RawMessage) (json.RawMessage, error) {
	req := SampleRequest{Server: s.name, Raw: params}
	if err := json.Unmarshal(params, &req.Params); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "sampling/createMessage: %v", err)
	}
	if _, err := req.Params.DecodeMessages(); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%v", err)
	}
	asked := time.Now()
	var out SampleResponse
	err := ErrNotAnswered
	if sr, ok := r.(SamplingResponder); ok {
		out, err = sr.Sample(ctx, req)
	}
	if errors.Is(err, ErrNotAnswered) {
		sm := s.c.sampler()
		if sm == nil {
			return nil, fmt.Errorf("%w: mcpdeck did not declare sampling (run the TUI, or give --sampling decline|FILE)", ErrUnsupported)
		}
		out, err = sm.Sample(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	decision := "answered"
	if out.Declined {
		decision = "declined"
	}
	s.c.bus.publish(OperatorDecision{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Kind: DecisionSampling,
		Subject: "sampling/createMessage", Decision: decision, By: out.By, Reason: out.Reason, Asked: asked})
	if out.Declined {
		return nil, &samplingDeclined{reason: out.Reason}
	}
	if err := out.Result.Check(); err != nil {
		return nil, fmt.Errorf("the sampling reply cannot be sent: %w", err)
	}
	return json.Marshal(out.Result)
}
