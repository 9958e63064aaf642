package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"os"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/jsonrpc"
)

// peer is the other end of a Conn, in this process, over real OS pipes:
// for the cases where the test must script the peer's side precisely
// (answering after a cancellation, sending requests to the client).
type peer struct {
	rpc  *jsonrpc2.Conn
	conn *jsonrpc.Conn
}

type handlerFunc func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request)

func (f handlerFunc) Handle(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) { f(ctx, c, r) }

type pipeRWC struct {
	r *os.File
	w *os.File
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	p.w.Close()
	return p.r.Close()
}

func newPeer(t *testing.T, h handlerFunc, opts jsonrpc.Options) *peer {
	t.Helper()
	aR, aW, _ := os.Pipe() // peer → conn
	bR, bW, _ := os.Pipe() // conn → peer
	p := &peer{}
	p.rpc = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(pipeRWC{bR, aW}),
		jsonrpc2.AsyncHandler(h), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	p.conn = jsonrpc.NewConn(jsonrpc.NewStdioStream(aR, bW, closers{bW, aR}, jsonrpc.StdioOptions{}), opts)
	t.Cleanup(func() {
		p.conn.Close()
		p.rpc.Close()
		<-p.rpc.DisconnectNotify()
	})
	return p
}

func TestLateResponseIsDroppedAndCounted(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	anomalies := make(chan jsonrpc.Anomaly, 4)
	p := newPeer(t, func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) {
		if r.Notif {
			return
		}
		if r.Method == "slow" {
			<-release // answer only after the client gave up
		}
		_ = c.Reply(ctx, r.ID, map[string]string{"method": r.Method})
	}, jsonrpc.Options{OnAnomaly: func(a jsonrpc.Anomaly) { anomalies <- a }})

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := p.conn.Call(ctx, "slow", nil)
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("err = %v, want timeout", err)
	}
	close(release)
	select {
	case a := <-anomalies:
		if a.Kind != jsonrpc.AnomalyLateResponse {
			t.Fatalf("anomaly = %+v, want a late response", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("late response not reported")
	}
	if got := p.conn.Stats().LateResponses; got != 1 {
		t.Fatalf("late responses = %d", got)
	}
	// The late response did not leak into the next call.
	raw, err := p.conn.Call(ctxTimeout(t, 5*time.Second), "fast", nil)
	if err != nil || string(raw) != `{"method":"fast"}` {
		t.Fatalf("next call = %s, %v", raw, err)
	}
}

func TestPeerRequestsAreAnswered(t *testing.T) {
	t.Parallel()
	handlerStarted := make(chan struct{})
	handlerCancelled := make(chan struct{})
	p := newPeer(t, func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}, jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "roots/list":
				return map[string]any{"roots": []map[string]string{{"uri": "file:///work"}}}, nil
			case "elicitation/create":
				close(handlerStarted)
				<-ctx.Done()
				close(handlerCancelled)
				return nil, ctx.Err()
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
		},
	})
	ctx := ctxTimeout(t, 5*time.Second)

	var pong json.RawMessage
	if err := p.rpc.Call(ctx, "ping", nil, &pong); err != nil || string(pong) != "{}" {
		t.Fatalf("ping = %s, %v", pong, err)
	}
	var roots struct{ Roots []struct{ URI string } }
	if err := p.rpc.Call(ctx, "roots/list", nil, &roots); err != nil || len(roots.Roots) != 1 || roots.Roots[0].URI != "file:///work" {
		t.Fatalf("roots/list = %+v, %v", roots, err)
	}
	err := p.rpc.Call(ctx, "sampling/createMessage", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("unknown method = %v, want -32601", err)
	}

	// A request the peer cancels is stopped and never answered.
	w, err := p.rpc.DispatchCall(ctx, "elicitation/create", nil, jsonrpc2.PickID(jsonrpc2.ID{Num: 77}))
	if err != nil {
		t.Fatal(err)
	}
	<-handlerStarted
	if err := p.rpc.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": 77}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-handlerCancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("handler context not cancelled by notifications/cancelled")
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := w.Wait(short, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled request was answered: %v", err)
	}
}
