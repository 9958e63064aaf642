package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestEveryRequestGoesDownTheChain: a link added last to the chain sees
// every request the runtime sends, in both eras: the handshake, the
// lists, a call, a health probe. Each request frame that leaves (a
// traffic frame, by id) went through it with the same method, so a link
// added for all requests (a header, a metric) reaches all of them.
func TestEveryRequestGoesDownTheChain(t *testing.T) {
	for _, mode := range []jsonrpctest.Mode{jsonrpctest.Normal, jsonrpctest.Modern} {
		t.Run(string(mode), func(t *testing.T) {
			var mu sync.Mutex
			linked := map[uint64]string{} // request id → method, as the link saw it
			saw := func(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
				onID := r.onID
				r.onID = func(id uint64) {
					mu.Lock()
					linked[id] = r.method
					mu.Unlock()
					if onID != nil {
						onID(id)
					}
				}
				return next(ctx, r)
			}
			saved := links
			links = append(append([]link(nil), links...), saw)
			t.Cleanup(func() { links = saved })

			c := newController(t, fakeServer("f", mode))
			rec := record(t, c)
			enable(t, c)
			if _, err := c.Call(ctxFor(t, 10e9), CallRequest{Server: "f", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); err != nil {
				t.Fatalf("call: %v", err)
			}
			if _, _, err := c.Ping(ctxFor(t, 10e9), "f"); err != nil {
				t.Fatalf("ping: %v", err)
			}
			answered := func(method string) func(Event) bool {
				return func(e Event) bool {
					f, ok := e.(TrafficFrame)
					return ok && f.Frame.Dir == jsonrpc.In && f.Frame.Kind == jsonrpc.KindResult && f.Frame.Method == method
				}
			}
			rec.waitFor(t, "the call's answer", answered("tools/call"))
			probe := "ping"
			if mode == jsonrpctest.Modern {
				probe = "server/discover"
			}
			rec.waitFor(t, "the health probe's answer", answered(probe))

			mu.Lock()
			defer mu.Unlock()
			sent := map[string]bool{}
			for _, e := range rec.seen {
				f, ok := e.(TrafficFrame)
				if !ok || f.Frame.Dir != jsonrpc.Out || f.Frame.Kind != jsonrpc.KindRequest {
					continue
				}
				sent[f.Frame.Method] = true
				var id uint64
				if err := json.Unmarshal([]byte(f.Frame.ID), &id); err != nil {
					t.Fatalf("request id %q: %v", f.Frame.ID, err)
				}
				if got := linked[id]; got != f.Frame.Method {
					t.Errorf("request %d (%s) left without going down the chain (the link saw %q)", id, f.Frame.Method, got)
				}
			}
			want := []string{"tools/list", "tools/call"}
			if mode == jsonrpctest.Normal {
				want = append(want, "initialize", "ping")
			} else {
				want = append(want, "server/discover")
			}
			for _, m := range want {
				if !sent[m] {
					t.Errorf("no %s among the requests sent (%v)", m, sent)
				}
			}
		})
	}
}
