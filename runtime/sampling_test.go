package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// replySampler answers every sampling request with a fixed text, or
// declines, and keeps what it was asked.
type replySampler struct {
	text    string
	decline bool
	mu      sync.Mutex
	asked   []SampleRequest
}

func (s *replySampler) Sample(_ context.Context, req SampleRequest) (SampleResponse, error) {
	s.mu.Lock()
	s.asked = append(s.asked, req)
	s.mu.Unlock()
	if s.decline {
		return SampleResponse{Declined: true, Reason: "the test declines", By: "test"}, nil
	}
	return SampleResponse{Result: mcp.TextReply(s.text, "test-model"), By: "test"}, nil
}

func (s *replySampler) requests() []SampleRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SampleRequest(nil), s.asked...)
}

// Roots makes a replySampler a CallResponder too (the caller's answer).
func (s *replySampler) Elicit(context.Context, ElicitRequest) (ElicitResponse, error) {
	return ElicitResponse{}, ErrNotAnswered
}
func (s *replySampler) Roots(context.Context, string) ([]Root, error) { return nil, ErrNotAnswered }

// samplingPeers are the real servers whose "sample" tool asks for
// sampling, in each era they speak: the go-sdk v1.8.0 server (MRTR in the
// 2026-07-28 era, a server→client request in the legacy one) and the
// TypeScript SDK v2 server (inputRequired.createMessage, or
// ctx.mcpReq.requestSampling on a legacy connection).
func samplingPeers(t *testing.T) []struct {
	name, era string
	srv       config.Server
} {
	gosdk := fakeServer("peer", jsonrpctest.GoSDKModern)
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	ts := config.Server{Name: "peer", Transport: config.TransportStdio, Command: path, Args: args, Env: map[string]string{},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == jsonrpctest.EnvNodeModules {
			ts.Env[k] = v
		}
	}
	var out []struct {
		name, era string
		srv       config.Server
	}
	for _, era := range []string{"modern", "legacy"} {
		for name, srv := range map[string]config.Server{"gosdk": gosdk, "ts": ts} {
			srv.Protocol = era
			out = append(out, struct {
				name, era string
				srv       config.Server
			}{name + "-" + era, era, srv})
		}
	}
	return out
}

func TestSamplingAnsweredInBothEras(t *testing.T) {
	for _, p := range samplingPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			s := &replySampler{text: "Paris"}
			c := New(Options{Config: configOf(p.srv), Sampler: s, StopGrace: 500 * time.Millisecond})
			t.Cleanup(func() { c.Shutdown(context.Background()) })
			rec := record(t, c)
			enable(t, c)
			if era := serverOf(t, c, "peer").Era; era.String() != p.era {
				t.Fatalf("the server speaks %s, want %s", era, p.era)
			}
			ctx := ctxFor(t, 30*time.Second)
			res, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "sample", Arguments: json.RawMessage(`{"prompt":"Capital of France?"}`)})
			if err != nil {
				t.Fatalf("sample: %v", err)
			}
			if got := text(t, res); got != "model said: Paris (test-model)" {
				t.Fatalf("the reply did not reach the server: %q", got)
			}
			asked := s.requests()
			if len(asked) != 1 {
				t.Fatalf("the sampler was asked %d times", len(asked))
			}
			req := asked[0]
			msgs, err := req.Params.DecodeMessages()
			if err != nil || len(msgs) != 1 || msgs[0].Role != "user" || !strings.Contains(string(msgs[0].Content[0]), "Capital of France?") {
				t.Fatalf("messages %+v, %v", msgs, err)
			}
			if req.Server != "peer" || req.Params.SystemPrompt != "Answer in one word." || req.Params.MaxTokens != 50 ||
				!strings.Contains(string(req.Params.ModelPreferences), `"claude"`) {
				t.Fatalf("the request as the sampler saw it: %+v", req)
			}
			d := rec.waitFor(t, "the decision", func(e Event) bool { _, ok := e.(OperatorDecision); return ok }).(OperatorDecision)
			if d.Kind != DecisionSampling || d.Decision != "answered" || d.By != "test" || d.Server != "peer" || d.Asked.After(d.Time) {
				t.Fatalf("decision %+v", d)
			}
		})
	}
}

// A declined sampling request: a legacy server hears the user's rejection
// (-1) and its tool says so; a modern server's request ends at once, as
// the revision says (no retry), with ErrDeclined.
func TestSamplingDeclinedInBothEras(t *testing.T) {
	for _, p := range samplingPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			c := New(Options{Config: configOf(p.srv), Sampler: &replySampler{decline: true}, StopGrace: 500 * time.Millisecond})
			t.Cleanup(func() { c.Shutdown(context.Background()) })
			enable(t, c)
			ctx := ctxFor(t, 30*time.Second)
			rounds := 0
			res, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "sample", Arguments: json.RawMessage(`{"prompt":"x"}`),
				OnStarted: func(uint64) { rounds++ }})
			if p.era == "modern" {
				if !errors.Is(err, ErrDeclined) || KindOf(err) != KindDeclined || !strings.Contains(err.Error(), "the test declines") || rounds != 1 {
					t.Fatalf("want the call to end declined after one round: %+v, %v (rounds %d)", res, err, rounds)
				}
				return
			}
			// Legacy: what the server makes of the rejection is its own;
			// it must have heard it (no reply text), whichever way it ends.
			var said string
			if err == nil {
				said = text(t, res)
			} else {
				said = err.Error()
			}
			t.Logf("the server made of the rejection: %s", said)
			if strings.Contains(said, "model said") || !strings.Contains(strings.ToLower(said), "reject") {
				t.Fatalf("the server did not hear the rejection: %+v, %v", res, err)
			}
			// A server that ends the call with the rejection (-1) ends it
			// declined, as a modern request does: one kind, one exit code.
			if err != nil && (KindOf(err) != KindDeclined || !errors.Is(err, ErrDeclined)) {
				t.Fatalf("the server ended the call with the rejection, of kind %s: %v", KindOf(err), err)
			}
		})
	}
}

// Without a sampler mcpdeck does not declare sampling; a legacy server
// that asks anyway gets -32601, a modern one must not ask (its own SDK
// refuses first).
func TestSamplingUndeclaredWithoutASampler(t *testing.T) {
	for _, p := range samplingPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			c := New(Options{Config: configOf(p.srv), StopGrace: 500 * time.Millisecond})
			t.Cleanup(func() { c.Shutdown(context.Background()) })
			enable(t, c)
			res, err := c.Call(ctxFor(t, 30*time.Second), CallRequest{Server: "peer", Tool: "sample", Arguments: json.RawMessage(`{"prompt":"x"}`)})
			if err == nil && !res.IsError {
				t.Fatalf("a call that needs sampling succeeded without it: %+v", res)
			}
		})
	}
	caps := newController(t).clientCapabilities("x", nil)
	if caps.Sampling != nil {
		t.Fatalf("sampling declared without a sampler: %+v", caps)
	}
	with := newController(t)
	with.SetSampler(DeclineSampler{})
	if caps := with.clientCapabilities("x", nil); caps.Sampling == nil || caps.Sampling.Tools == nil {
		t.Fatalf("sampling not declared with a sampler: %+v", caps)
	}
}

// A sampling request a server asks during a caller's request goes to the
// caller's responder (the gateway's client) when it answers sampling, else
// to the Controller's Sampler.
func TestSamplingRoutedToTheCaller(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			global := &replySampler{text: "operator"}
			srv := fakeServer("peer", jsonrpctest.GoSDKModern)
			srv.Protocol = era
			c := New(Options{Config: configOf(srv), Sampler: global, StopGrace: 500 * time.Millisecond})
			t.Cleanup(func() { c.Shutdown(context.Background()) })
			enable(t, c)
			ctx := ctxFor(t, 30*time.Second)
			caller := &replySampler{text: "client"}
			res, err := c.Call(WithResponder(ctx, caller), CallRequest{Server: "peer", Tool: "sample", Arguments: json.RawMessage(`{"prompt":"x"}`)})
			if err != nil || text(t, res) != "model said: client (test-model)" || len(global.requests()) != 0 {
				t.Fatalf("with a responder: %+v, %v (global asked %d)", res, err, len(global.requests()))
			}
			res, err = c.Call(WithResponder(ctx, &countingElicitor{}), CallRequest{Server: "peer", Tool: "sample", Arguments: json.RawMessage(`{"prompt":"x"}`)})
			if err != nil || text(t, res) != "model said: operator (test-model)" || len(global.requests()) != 1 {
				t.Fatalf("a responder that cannot sample: %+v, %v", res, err)
			}
		})
	}
}

// server-everything (the reference server, legacy) registers its sampling
// tool only for a client that declares sampling; a canned reply
// (--sampling FILE) answers it.
func TestEverythingSampling(t *testing.T) {
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	canned, err := ParseCannedReply([]byte("The capital is Paris.\n"), "reply.txt")
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: configOf(srv), Sampler: canned, StopGrace: time.Second})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	rec := record(t, c)
	enable(t, c)
	deadline := time.After(20 * time.Second)
	for !strings.Contains(toolNames(serverOf(t, c, "everything").Tools), "trigger-sampling-request") {
		select {
		case <-deadline:
			t.Fatalf("the sampling tool never listed: %s", toolNames(serverOf(t, c, "everything").Tools))
		case <-rec.ch:
		}
	}
	res, err := c.Call(ctxFor(t, 30*time.Second), CallRequest{Server: "everything", Tool: "trigger-sampling-request",
		Arguments: json.RawMessage(`{"prompt":"Capital of France?","maxTokens":20}`)})
	if err != nil || res.IsError {
		t.Fatalf("sampling round trip: %+v, %v", res, err)
	}
	got := text(t, res)
	for _, want := range []string{"The capital is Paris.", CannedModel, "endTurn"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the canned reply did not reach the server (%q missing): %s", want, got)
		}
	}
}

func TestParseCannedReply(t *testing.T) {
	good := []struct{ name, in, text, model string }{
		{"text", "Paris", "Paris", CannedModel},
		{"one final newline dropped", "Paris\n", "Paris", CannedModel},
		{"crlf", "Paris\r\n", "Paris", CannedModel},
		{"inner lines kept", "a\n\nb\n\n", "a\n\nb\n", CannedModel},
		{"a whole result", `{"role":"assistant","content":{"type":"text","text":"Lyon"},"model":"m1","stopReason":"endTurn"}`, "Lyon", "m1"},
		{"blocks", `{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"1","name":"f","input":{}}],"model":"m2"}`, "x", "m2"},
	}
	for _, tc := range good {
		c, err := ParseCannedReply([]byte(tc.in), "f")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		blocks, err := mcp.ContentBlocks(c.Reply.Content)
		var first mcp.Content
		if err == nil {
			err = json.Unmarshal(blocks[0], &first)
		}
		if err != nil || first.Text != tc.text || c.Reply.Model != tc.model || c.Reply.Role != "assistant" {
			t.Errorf("%s: %+v (%q), %v", tc.name, c.Reply, first.Text, err)
		}
	}
	bad := []struct{ name, in, want string }{
		{"empty", " \n", "is empty"},
		{"not utf-8", "\xff\xfe", "not UTF-8"},
		{"broken json", `{"role":`, "not a CreateMessageResult"},
		{"unknown field", `{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","extra":1}`, "unknown field"},
		{"no model", `{"role":"assistant","content":{"type":"text","text":"x"}}`, "names no model"},
		{"bad role", `{"role":"system","content":{"type":"text","text":"x"},"model":"m"}`, `role is "system"`},
		{"no content", `{"role":"assistant","model":"m"}`, "content is missing"},
		{"untyped block", `{"role":"assistant","content":[{"text":"x"}],"model":"m"}`, `"type"`},
	}
	for _, tc := range bad {
		_, err := ParseCannedReply([]byte(tc.in), "reply.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "reply.json") {
			t.Errorf("%s: %v, want it to name the file and say %q", tc.name, err, tc.want)
		}
	}
}

// failingElicitor fails every elicitation, as a declined sampling request
// or a broken answer does.
type failingElicitor struct{}

func (failingElicitor) Elicit(context.Context, ElicitRequest) (ElicitResponse, error) {
	return ElicitResponse{}, errors.New("no answer to give")
}

// A task whose input request mcpdeck cannot answer (a declined sampling
// request, a failed answer) is given up on: the server is told with
// tasks/cancel, rather than left waiting for input until its TTL.
func TestTaskGivenUpWhenItsInputFails(t *testing.T) {
	c := modernController(t, failingElicitor{}, fakeServer("m", jsonrpctest.Modern))
	rec := record(t, c)
	enable(t, c)
	_, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "m", Tool: "task", Arguments: json.RawMessage(`{"input":true,"seconds":0.1}`)})
	if err == nil || !strings.Contains(err.Error(), "no answer to give") {
		t.Fatalf("want the answer's failure: %v", err)
	}
	up := rec.waitAny(t, "the task", func(e Event) bool { _, ok := e.(TaskUpdated); return ok }).(TaskUpdated)
	waitStderr(t, rec, "m", "task cancelled "+up.Task.TaskID)
}
