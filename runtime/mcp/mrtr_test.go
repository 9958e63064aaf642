package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestTypeOf(t *testing.T) {
	cases := []struct {
		result string
		tasks  bool
		want   ResultType
		err    error
	}{
		{`{"content":[]}`, false, Complete, nil}, // legacy: absent is complete
		{`{"resultType":"complete"}`, false, Complete, nil},
		{`{"resultType":"input_required","requestState":"s"}`, false, InputRequired, nil},
		{`{"resultType":"task","taskId":"t"}`, true, TaskResult, nil},
		{`{"resultType":"task","taskId":"t"}`, false, "", ErrUnknownResultType},
		{`{"resultType":"streaming"}`, true, "", ErrUnknownResultType},
		{`[1,2]`, false, "", ErrBadResult},
	}
	for _, c := range cases {
		got, err := TypeOf(json.RawMessage(c.result), c.tasks)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("TypeOf(%s, tasks=%v) = %q, %v; want %q, %v", c.result, c.tasks, got, err, c.want, c.err)
		}
	}
	if _, err := TypeOf(json.RawMessage(`{"resultType":"streaming"}`), false); !strings.Contains(err.Error(), `"streaming"`) {
		t.Errorf("the error %q does not name the unknown type", err)
	}
}

func TestDecodeInputRequired(t *testing.T) {
	// The state is kept as its raw token, escapes and all.
	raw := `{"resultType":"input_required","inputRequests":{"zeta":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object"}}},"alpha":{"method":"roots/list"}},"requestState":"ask-v1:\u00e9<&>\\\"x"}`
	ir, err := DecodeInputRequired(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ir.Keys, ",") != "zeta,alpha" {
		t.Errorf("keys in %v, want server order zeta,alpha", ir.Keys)
	}
	if string(ir.State) != `"ask-v1:\u00e9<&>\\\"x"` {
		t.Errorf("state token = %s, want the wire bytes", ir.State)
	}
	if s, ok := ir.StateString(); !ok || s != `ask-v1:é<&>\"x` {
		t.Errorf("StateString = %q %v", s, ok)
	}
	e, err := ir.Requests["zeta"].Elicitation()
	if err != nil || e.Mode != "form" || e.Message != "Name?" {
		t.Errorf("Elicitation() = %+v, %v", e, err)
	}
	for name, bad := range map[string]string{
		"neither":       `{"resultType":"input_required"}`,
		"state number":  `{"requestState":7}`,
		"unknown input": `{"inputRequests":{"k":{"method":"tools/call","params":{}}}}`,
		"params array":  `{"inputRequests":{"k":{"method":"roots/list","params":[]}}}`,
	} {
		if _, err := DecodeInputRequired(json.RawMessage(bad)); !errors.Is(err, ErrBadInputRequired) {
			t.Errorf("%s: error = %v, want ErrBadInputRequired", name, err)
		}
	}
}

func TestRetryParams(t *testing.T) {
	orig := json.RawMessage(`{"name":"ask","arguments":{"q":"<x>"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"inputResponses":{"old":{}},"requestState":"old"}`)
	state := json.RawMessage(`"v1.\u00e9<&>"`)
	got, err := RetryParams(orig, map[string]json.RawMessage{"who": ElicitAccept(map[string]any{"name": "octocat"})}, state)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"requestState":"v1.\u00e9<&>"`) {
		t.Errorf("retry %s does not carry the state byte for byte", got)
	}
	m := decodeMap(t, got)
	if m["name"] != "ask" || m["arguments"].(map[string]any)["q"] != "<x>" || m["_meta"] == nil {
		t.Errorf("retry lost original params: %s", got)
	}
	if resp := m["inputResponses"].(map[string]any); resp["old"] != nil || resp["who"].(map[string]any)["action"] != "accept" {
		t.Errorf("inputResponses = %v", resp)
	}
	// No state in this round: the client must not send one.
	got, _ = RetryParams(orig, map[string]json.RawMessage{"who": ElicitDecline()}, nil)
	if strings.Contains(string(got), "requestState") {
		t.Errorf("retry without a state still carries one: %s", got)
	}
}

// scripted is a fake server for Flow: it answers each call from a list and
// records the params it was sent.
type scripted struct {
	answers []string
	sent    []json.RawMessage
}

func (s *scripted) call(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	s.sent = append(s.sent, params)
	if len(s.answers) == 0 {
		return nil, errors.New("no more answers")
	}
	a := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	return json.RawMessage(a), nil
}

var elicitCaps = ClientCapabilities{Elicitation: &ElicitationCapability{Form: &Empty{}}}

func TestFlowRoundTrip(t *testing.T) {
	srv := &scripted{answers: []string{
		`{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"message":"What is your name?"}}},"requestState":"ask-v1:1796086590450"}`,
		`{"resultType":"input_required","requestState":"ask-v2"}`, // load shedding: state only
		`{"resultType":"complete","content":[{"type":"text","text":"Hello, octocat!"}]}`,
	}}
	var rounds []Round
	asked := 0
	res, typ, err := Flow{Capabilities: elicitCaps, OnRound: func(r Round) { rounds = append(rounds, r) }}.Run(context.Background(), srv.call,
		json.RawMessage(`{"name":"ask","arguments":{}}`),
		func(_ context.Context, key string, req InputRequest) (json.RawMessage, error) {
			asked++
			if key != "who" || req.Method != MethodElicit {
				t.Errorf("asked %s %s", key, req.Method)
			}
			return ElicitAccept(map[string]any{"name": "octocat"}), nil
		})
	if err != nil || typ != Complete || !strings.Contains(string(res), "Hello, octocat!") {
		t.Fatalf("Run = %s %q %v", res, typ, err)
	}
	if asked != 1 || len(srv.sent) != 3 || len(rounds) != 3 {
		t.Fatalf("asked %d times, sent %d requests, %d rounds; want 1, 3, 3", asked, len(srv.sent), len(rounds))
	}
	if strings.Contains(string(srv.sent[0]), "requestState") {
		t.Errorf("first request carries a state: %s", srv.sent[0])
	}
	if !strings.Contains(string(srv.sent[1]), `"requestState":"ask-v1:1796086590450"`) || !strings.Contains(string(srv.sent[1]), `"who":{"action":"accept","content":{"name":"octocat"}}`) {
		t.Errorf("second request = %s", srv.sent[1])
	}
	if !strings.Contains(string(srv.sent[2]), `"requestState":"ask-v2"`) || strings.Contains(string(srv.sent[2]), "inputResponses") {
		t.Errorf("third request = %s; want the new state and no stale responses", srv.sent[2])
	}
	if rounds[0].Type != InputRequired || rounds[0].Input == nil || rounds[2].Type != Complete {
		t.Errorf("rounds = %+v", rounds)
	}
}

func TestFlowEndlessLoop(t *testing.T) {
	srv := &scripted{answers: []string{`{"resultType":"input_required","requestState":"again"}`}}
	_, _, err := Flow{MaxRounds: 3}.Run(context.Background(), srv.call, nil, nil)
	if !errors.Is(err, ErrTooManyRounds) {
		t.Fatalf("error = %v, want ErrTooManyRounds", err)
	}
	if len(srv.sent) != 4 {
		t.Errorf("sent %d requests, want the first plus 3 retries", len(srv.sent))
	}
}

func TestFlowUndeclaredInput(t *testing.T) {
	srv := &scripted{answers: []string{`{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{}}}}`}}
	_, _, err := Flow{Capabilities: elicitCaps}.Run(context.Background(), srv.call, nil,
		func(context.Context, string, InputRequest) (json.RawMessage, error) {
			t.Error("asked to fulfil a request the client never declared")
			return nil, nil
		})
	if !errors.Is(err, ErrBadInputRequired) || !strings.Contains(err.Error(), "sampling/createMessage") {
		t.Errorf("error = %v", err)
	}
}

func TestFlowFulfilFails(t *testing.T) {
	srv := &scripted{answers: []string{`{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{}}}}`}}
	boom := errors.New("form closed")
	_, _, err := Flow{Capabilities: elicitCaps}.Run(context.Background(), srv.call, nil,
		func(context.Context, string, InputRequest) (json.RawMessage, error) { return nil, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `"who"`) {
		t.Errorf("error = %v", err)
	}
}

func TestResponses(t *testing.T) {
	if string(ElicitDecline()) != `{"action":"decline"}` || string(ElicitCancel()) != `{"action":"cancel"}` {
		t.Error("decline/cancel shapes")
	}
	if string(ElicitAccept(nil)) != `{"action":"accept"}` {
		t.Errorf("url-mode accept = %s", ElicitAccept(nil))
	}
	if string(RootsResult(nil)) != `{"roots":[]}` {
		t.Errorf("no roots = %s", RootsResult(nil))
	}
}

func TestTypeOfScan(t *testing.T) {
	cases := map[string]ResultType{
		`{"content":[{"type":"text","text":"\"resultType\":\"task\""}],"resultType":"complete"}`: Complete,
		`{"a":{"resultType":"task"},"b":["resultType","x"],"resultType" : "input_required"}`:     InputRequired,
		` {"nested":{"resultType":"input_required"}}`:                                            Complete,
		`{"result\u0054ype":"input_required"}`:                                                   InputRequired, // escaped key: decoded properly
		`{"resultType":"comp\u006cete"}`:                                                         Complete,      // escaped value: decoded properly
	}
	for raw, want := range cases {
		if got, err := TypeOf(json.RawMessage(raw), false); err != nil || got != want {
			t.Errorf("TypeOf(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
	if _, err := TypeOf(json.RawMessage(`{"resultType":7}`), false); !errors.Is(err, ErrBadResult) {
		t.Errorf("a numeric resultType: %v", err)
	}
}

func BenchmarkTypeOf(b *testing.B) {
	res := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"0.0.1"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TypeOf(res, false); err != nil {
			b.Fatal(err)
		}
	}
}
