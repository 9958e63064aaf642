package jsonrpc_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/jsonrpc"
)

// A peer's request reaches the Handler with its params exactly as sent:
// they are not decoded into a map and marshalled again (which would sort
// the keys and cost a decode per request on a server's hot path), and its
// string id is kept.
func TestPeerRequestParamsArriveAsSent(t *testing.T) {
	t.Parallel()
	got := make(chan *jsonrpc.Request, 1)
	p := newPeer(t, func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}, jsonrpc.Options{
		Handler: func(_ context.Context, req *jsonrpc.Request) (any, error) {
			got <- req
			return map[string]string{"ok": "yes"}, nil
		},
	})
	ctx := ctxTimeout(t, 5*time.Second)
	params := json.RawMessage(`{"z":1,"a":{"y":2.50,"b":"x"},"_meta":{"k":"v"}}`)
	var res struct{ OK string }
	if err := p.rpc.Call(ctx, "tools/call", &params, &res, jsonrpc2.PickID(jsonrpc2.ID{Str: "req-1", IsString: true})); err != nil || res.OK != "yes" {
		t.Fatalf("call: %+v %v", res, err)
	}
	req := <-got
	if string(req.Params) != string(params) || req.ID != `"req-1"` || req.Method != "tools/call" {
		t.Fatalf("the handler saw id %s method %s params %s; want params as sent: %s", req.ID, req.Method, req.Params, params)
	}
}

// Closing the connection cancels the peer's requests still being handled
// (the Handler's contract), so Close never waits on a handler that waits
// on someone (an elicitation form nobody will fill in now).
func TestCloseCancelsHandlers(t *testing.T) {
	t.Parallel()
	started, cancelled := make(chan struct{}), make(chan struct{})
	p := newPeer(t, func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}, jsonrpc.Options{
		Handler: func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		},
	})
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := p.rpc.DispatchCall(ctx, "elicitation/create", nil); err != nil {
		t.Fatal(err)
	}
	<-started
	closed := make(chan error, 1)
	go func() { closed <- p.conn.Close() }()
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the handler was not cancelled by Close")
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}
