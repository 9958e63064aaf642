package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/jsonrpc"
)

// Responses are taken off the stream before the library's decoder: each
// caller gets its own result even when the peer answers many at once (the
// read buffer is reused between frames), errors keep their code, message
// and data, and a second response with an answered id is unknown.
func TestResponsesTakenOffTheStream(t *testing.T) {
	anomalies := make(chan jsonrpc.Anomaly, 16)
	p := newPeer(t, func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) {
		if r.Notif {
			return
		}
		switch r.Method {
		case "echo":
			_ = c.Reply(ctx, r.ID, r.Params)
		case "fail":
			data := json.RawMessage(`{"why":["because"]}`)
			_ = c.ReplyWithError(ctx, r.ID, &jsonrpc2.Error{Code: -32022, Message: "nope", Data: &data})
		case "twice":
			_ = c.Reply(ctx, r.ID, "first")
			_ = c.Reply(ctx, r.ID, "second")
		}
	}, jsonrpc.Options{OnAnomaly: func(a jsonrpc.Anomaly) { anomalies <- a }})
	ctx := ctxTimeout(t, 10*time.Second)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			want := fmt.Sprintf(`{"n":%d,"pad":"%0*d"}`, i, i*7, 0)
			raw, err := p.conn.Call(ctx, "echo", json.RawMessage(want))
			if err != nil || string(raw) != want {
				errs <- fmt.Errorf("call %d: %s, %v", i, raw, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	_, err := p.conn.Call(ctx, "fail", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32022 || rpcErr.Message != "nope" || string(rpcErr.Data) != `{"why":["because"]}` {
		t.Fatalf("error response: %#v", err)
	}

	raw, err := p.conn.Call(ctx, "twice", nil)
	if err != nil || string(raw) != `"first"` {
		t.Fatalf("twice: %s, %v", raw, err)
	}
	select {
	case a := <-anomalies:
		if a.Kind != jsonrpc.AnomalyUnknownResponse {
			t.Fatalf("anomaly %+v; want the second response unknown", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second response to one id was not reported")
	}
	if st := p.conn.Stats(); st.UnknownResponses != 1 {
		t.Fatalf("unknown responses %d", st.UnknownResponses)
	}
}
