package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// The runtime's verdict on each misbehaving modern fake, and on the eras
// the protocol setting rules out.

func TestModernNoResultTypeReadsAsComplete(t *testing.T) {
	t.Parallel()
	c := modernController(t, &nameElicitor{name: "x"}, fakeServer("m", jsonrpctest.ModernNoResultType))
	enable(t, c)
	if v := serverOf(t, c, "m"); v.Era != EraModern || len(v.Tools) == 0 {
		t.Fatalf("era %s tools %d", v.Era, len(v.Tools))
	}
	res, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "m", Tool: "echo", Arguments: json.RawMessage(`{"text":"plain"}`)})
	if err != nil || text(t, res) != "plain" {
		t.Fatalf("a result without resultType: %+v, %v; want it read as complete", res, err)
	}
}

func TestModernChangedStateIsRefused(t *testing.T) {
	t.Parallel()
	c := modernController(t, &nameElicitor{name: "x"}, fakeServer("m", jsonrpctest.ModernChangedState))
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "m", Tool: "ask"})
	var ce *CallError
	if !errors.As(err, &ce) || ce.Info.Kind != KindProtocol || ce.Info.Code != CodeInvalidParams || !strings.Contains(ce.Info.Message, "requestState") {
		t.Fatalf("a server that refuses its own requestState: %v; want the -32602 it answered", err)
	}
}

func TestModernEndlessInputStopsAtTheBound(t *testing.T) {
	t.Parallel()
	c := modernController(t, &nameElicitor{name: "x"}, fakeServer("m", jsonrpctest.ModernEndlessInput))
	enable(t, c)
	var rounds int
	_, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "m", Tool: "ask", OnStarted: func(uint64) { rounds++ }})
	var ce *CallError
	if !errors.As(err, &ce) || ce.Info.Kind != KindProtocol || !errors.Is(err, mcp.ErrTooManyRounds) || !strings.Contains(err.Error(), "after 8 rounds") {
		t.Fatalf("endless input_required: %v; want a protocol error past 8 rounds", err)
	}
	if rounds != mcp.DefaultMaxRounds+1 {
		t.Fatalf("sent %d rounds; want the first and %d retries", rounds, mcp.DefaultMaxRounds)
	}
}

// declining answers every elicitation with decline, as the CLI does by
// default.
type declining struct{ asked atomic.Int32 }

func (d *declining) Elicit(context.Context, ElicitRequest) (ElicitResponse, error) {
	d.asked.Add(1)
	return ElicitResponse{Action: "decline"}, nil
}

// A server that asks again, word for word, for what was declined cannot go
// on without it: the call ends at the second asking, as declined, instead
// of looping to the round limit and being blamed on the server.
func TestModernDeclinedInputAskedAgainEndsTheCall(t *testing.T) {
	t.Parallel()
	d := &declining{}
	c := modernController(t, d, fakeServer("m", jsonrpctest.ModernEndlessInput))
	enable(t, c)
	var rounds int
	_, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "m", Tool: "ask", OnStarted: func(uint64) { rounds++ }})
	var ce *CallError
	if !errors.As(err, &ce) || ce.Info.Kind != KindDeclined || !errors.Is(err, ErrDeclined) ||
		!strings.Contains(err.Error(), `asked again for the input ("What is your name?") after it was declined`) {
		t.Fatalf("declined input asked again: %v", err)
	}
	if rounds != 2 || d.asked.Load() != 1 {
		t.Fatalf("sent %d rounds and asked %d times; want 2 rounds and one question", rounds, d.asked.Load())
	}
}

func TestModernNoCommonVersionFails(t *testing.T) {
	t.Parallel()
	c := modernController(t, nil, fakeServer("m", jsonrpctest.ModernNoCommonVersion))
	_ = c.SetEnabled(ctxFor(t, 20*time.Second), true)
	v := serverOf(t, c, "m")
	if v.State != StateFailed || v.LastError == nil || v.LastError.Kind != KindUnsupportedVersion || v.Reconnectable {
		t.Fatalf("no version in common: %s %+v reconnectable=%v", v.State, v.LastError, v.Reconnectable)
	}
	if !strings.Contains(v.LastError.Message, "2099-01-01") || !strings.Contains(v.LastError.Message, mcp.LatestModern) {
		t.Fatalf("the error should say what both sides speak: %q", v.LastError.Message)
	}
}

func TestLegacySilentDiscoverFallsBackAfterTheTimeout(t *testing.T) {
	t.Parallel()
	srv := fakeServer("l", jsonrpctest.LegacySilentDiscover)
	srv.DiscoverTimeout = 300 * time.Millisecond
	c := newController(t, srv)
	start := time.Now()
	enable(t, c)
	v := serverOf(t, c, "l")
	if v.Era != EraLegacy || v.ProtocolVersion != mcp.LatestLegacy || v.EraDecision != EraTimedOut || !strings.Contains(v.EraReason, "no answer to server/discover") {
		t.Fatalf("a silent legacy server: era %s %q, %s (%s)", v.Era, v.ProtocolVersion, v.EraDecision, v.EraReason)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("ready in %s, before the probe's timeout", took)
	}
	// The era is remembered: a reconnect does not probe again.
	rec := record(t, c)
	if err := c.Reconnect(ctxFor(t, 10*time.Second), "l"); err != nil {
		t.Fatal(err)
	}
	for _, e := range drain(rec) {
		if f, ok := e.(TrafficFrame); ok && f.Frame.Method == mcp.MethodDiscover {
			t.Fatal("the reconnect probed a server known to be legacy")
		}
	}
	if v := serverOf(t, c, "l"); v.EraDecision != EraRemembered || !strings.Contains(v.EraReason, "remembered as legacy") {
		t.Fatalf("after reconnect: %s (%s)", v.EraDecision, v.EraReason)
	}
}

func TestLegacyDiscoverErrorsMeanLegacy(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("n", jsonrpctest.Normal), fakeServer("i", jsonrpctest.LegacyDiscoverInvalidParams))
	enable(t, c)
	for name, code := range map[string]string{"n": "-32601", "i": "-32602"} {
		v := serverOf(t, c, name)
		if v.State != StateReady || v.Era != EraLegacy || v.EraDecision != EraLegacyError || !strings.Contains(v.EraReason, code) {
			t.Errorf("%s: %s era %s, %s (%s); want legacy, decided on %s", name, v.State, v.Era, v.EraDecision, v.EraReason, code)
		}
	}
}

func TestModernListenNeverAcknowledged(t *testing.T) {
	old := listenAckTimeout
	listenAckTimeout = 200 * time.Millisecond
	t.Cleanup(func() { listenAckTimeout = old })
	c := modernController(t, nil, fakeServer("m", jsonrpctest.ModernListenNoAck))
	rec := record(t, c)
	enable(t, c)
	v := serverOf(t, c, "m")
	if v.State != StateReady {
		t.Fatalf("a server that never acknowledges listen: %s; want ready without change notifications", v.State)
	}
	ev := rec.waitAny(t, "the listen given up", func(e Event) bool { l, ok := e.(ListenChanged); return ok && l.Listen.State == ListenRetry }).(ListenChanged)
	if !strings.Contains(ev.Listen.Err, "not acknowledged within 200ms") {
		t.Fatalf("listen: %+v", ev.Listen)
	}
	// The unacknowledged listen was cancelled on the wire.
	rec.waitAny(t, "notifications/cancelled for the listen", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == Out && f.Frame.Method == "notifications/cancelled"
	})
}

func TestProtocolSettingRulesOutAnEra(t *testing.T) {
	t.Parallel()
	legacyOnModern := fakeServer("m", jsonrpctest.Modern)
	legacyOnModern.Protocol = "legacy"
	modernOnLegacy := fakeServer("n", jsonrpctest.Normal)
	modernOnLegacy.Protocol = "modern"
	c := newController(t, legacyOnModern, modernOnLegacy)
	_ = c.SetEnabled(ctxFor(t, 20*time.Second), true)
	// It says what the server speaks and what to change, not only "-32022".
	if v := serverOf(t, c, "m"); v.State != StateFailed || v.LastError.Kind != KindUnsupportedVersion ||
		!strings.Contains(v.LastError.Message, "the server speaks "+jsonrpctest.ModernVersion+"; it speaks the stateless revision: set the protocol to auto or modern") {
		t.Errorf("initialize on a modern-only server: %s %+v", v.State, v.LastError)
	}
	if v := serverOf(t, c, "n"); v.State != StateFailed || v.LastError.Kind != KindUnsupportedVersion || !strings.Contains(v.LastError.Message, "only the legacy revisions") {
		t.Errorf("modern on a legacy server: %s %+v", v.State, v.LastError)
	}

	// The controller's setting (the --protocol flag) overrides the server's.
	c2 := New(Options{Config: configOf(legacyOnModern), Protocol: "auto", StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { c2.Shutdown(ctxFor(t, 20*time.Second)) })
	enable(t, c2)
	if v := serverOf(t, c2, "m"); v.Era != EraModern {
		t.Errorf("--protocol auto over the server's legacy: %s %s", v.State, v.Era)
	}
	bad := fakeServer("b", jsonrpctest.Normal)
	bad.Protocol = "1999-01-01"
	c3 := newController(t, bad)
	_ = c3.SetEnabled(ctxFor(t, 20*time.Second), true)
	if v := serverOf(t, c3, "b"); v.State != StateFailed || v.LastError.Kind != KindConfig {
		t.Errorf("a revision mcpdeck does not speak: %s %+v", v.State, v.LastError)
	}
}

func TestPinnedLegacyRevision(t *testing.T) {
	t.Parallel()
	srv := fakeServer("n", jsonrpctest.Normal)
	srv.Protocol = "2025-06-18"
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	if v := serverOf(t, c, "n"); v.Era != EraLegacy || v.ProtocolVersion != "2025-06-18" {
		t.Fatalf("pinned 2025-06-18: %s %s", v.Era, v.ProtocolVersion)
	}
	for _, e := range drain(rec) {
		if f, ok := e.(TrafficFrame); ok && f.Frame.Method == mcp.MethodDiscover {
			t.Fatal("a pinned legacy revision probed")
		}
	}
}

// TestModernListsCachedForTheirTTL: a reconnect inside the tools list's
// ttlMs takes it from the cache; a list change refetches it anyway.
func TestModernListsCachedForTheirTTL(t *testing.T) {
	t.Parallel()
	c := modernController(t, nil, fakeServer("m", jsonrpctest.Modern))
	enable(t, c)
	rec := record(t, c)
	if err := c.Reconnect(ctxFor(t, 10*time.Second), "m"); err != nil {
		t.Fatal(err)
	}
	v := serverOf(t, c, "m")
	if l := v.ListedAt.Tools; !l.FromCache || len(v.Tools) == 0 {
		t.Fatalf("after a reconnect inside the TTL: %+v, %d tools; want the cached list", l, len(v.Tools))
	}
	sent := func(method string) int {
		n := 0
		for _, e := range drain(rec) {
			if f, ok := e.(TrafficFrame); ok && f.Frame.Dir == Out && f.Frame.Method == method {
				n++
			}
		}
		return n
	}
	if n := sent("tools/list"); n != 0 {
		t.Fatalf("tools/list sent %d times inside its TTL", n)
	}
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "m", Tool: "notify_changed"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "tools relisted", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" })
	if n := sent("tools/list"); n != 1 {
		t.Fatalf("after a list change tools/list was sent %d times; want once", n)
	}
}

// TestModernResourceSubscriptionThroughListen: subscribing listens again
// with the resource in resourceSubscriptions; updates arrive on it.
func TestModernResourceSubscriptionThroughListen(t *testing.T) {
	t.Parallel()
	c := modernController(t, nil, fakeServer("m", jsonrpctest.Modern))
	rec := record(t, c)
	enable(t, c)
	ctx := ctxFor(t, 10*time.Second)
	before := serverOf(t, c, "m").Listen
	if err := c.SubscribeResource(ctx, "m", jsonrpctest.FakeResource); err != nil {
		t.Fatal(err)
	}
	after := serverOf(t, c, "m").Listen
	if after.ID == before.ID || !after.granted(jsonrpctest.FakeResource) || after.Opens != before.Opens+1 {
		t.Fatalf("listen after subscribing: %+v (before %+v)", after, before)
	}
	// The open listen is the session's standing stream, not a request
	// anyone waits on: nothing is outstanding.
	if out := serverOf(t, c, "m").Outstanding; len(out) != 0 {
		t.Fatalf("outstanding with only the listen open: %+v", out)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "touch", Arguments: json.RawMessage(`{"uri":"` + jsonrpctest.FakeResource + `"}`)}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the resource update", func(e Event) bool { u, ok := e.(ResourceUpdated); return ok && u.URI == jsonrpctest.FakeResource })
	// The subscription survives a reconnect: the new listen carries it.
	if err := c.Reconnect(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if l := serverOf(t, c, "m").Listen; !l.granted(jsonrpctest.FakeResource) {
		t.Fatalf("listen after reconnect: %+v", l)
	}
	if err := c.UnsubscribeResource(ctx, "m", jsonrpctest.FakeResource); err != nil {
		t.Fatal(err)
	}
	if l := serverOf(t, c, "m").Listen; l.granted(jsonrpctest.FakeResource) {
		t.Fatalf("listen after unsubscribing: %+v", l)
	}
}

// TestModernListenEndedByTheServerListensAgain: a server that ends the
// listen stream (a complete response, then notifications/cancelled) gets
// a new one, and list changes keep arriving on it.
func TestModernListenEndedByTheServerListensAgain(t *testing.T) {
	old := listenBackoff
	listenBackoff = 20 * time.Millisecond
	t.Cleanup(func() { listenBackoff = old })
	c := modernController(t, nil, fakeServer("m", jsonrpctest.Modern))
	rec := record(t, c)
	enable(t, c)
	first := serverOf(t, c, "m").Listen
	ctx := ctxFor(t, 10*time.Second)
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "end_listens"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the listen retried", func(e Event) bool { l, ok := e.(ListenChanged); return ok && l.Listen.State == ListenRetry })
	again := rec.waitFor(t, "a new listen", func(e Event) bool { l, ok := e.(ListenChanged); return ok && l.Listen.State == ListenOpen }).(ListenChanged)
	if again.Listen.ID == first.ID || again.Listen.Opens != first.Opens+1 {
		t.Fatalf("listen after the server ended it: %+v (before %+v)", again.Listen, first)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "notify_changed"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "a list change on the new stream", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" })
}

// TestModernMissingCapabilityIsActionable: -32021 keeps its data, so the
// faces can say which capability to declare.
func TestModernMissingCapabilityIsActionable(t *testing.T) {
	t.Parallel()
	c := modernController(t, nil, fakeServer("m", jsonrpctest.Modern)) // no elicitor: elicitation not declared
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "m", Tool: "ask"})
	var ce *CallError
	if !errors.As(err, &ce) || ce.Info.Kind != KindProtocol || ce.Info.Code != mcp.CodeMissingCapability || !strings.Contains(string(ce.Info.Data), `"requiredCapabilities"`) {
		t.Fatalf("ask without elicitation: %v; want -32021 with its data", err)
	}
}
