package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// Responses are taken off the stream before the library's decoder: each
// caller gets its own result even when the peer answers many at once (the
// read buffer is reused between frames), errors keep their code, message
// and data, and a second response with an answered id is unknown.
func TestResponsesTakenOffTheStream(t *testing.T) {
	t.Parallel()
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

// Close rejects outstanding calls at once, even while the read loop still
// waits for a server that keeps its stdout open after stdin closed (as the
// runtime's streams do: closing one closes only the server's stdin, and
// the process is stopped in the background meanwhile).
func TestCloseRejectsBeforeTheReadLoopEnds(t *testing.T) {
	t.Parallel()
	path, args, env := jsonrpctest.Command(jsonrpctest.IgnoreEOF)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(jsonrpc.NewStdioStream(stdout, stdin, stdin, jsonrpc.StdioOptions{}), jsonrpc.Options{})
	initialize(t, conn)
	errc := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), conn, "slow", map[string]any{"seconds": 30})
		errc <- err
	}()
	waitOutstanding(t, conn, 1)
	closed := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(closed)
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, jsonrpc.ErrClosedByClient) {
			t.Fatalf("err = %v, want closed by client", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the outstanding call waited for the read loop")
	}
	select {
	case <-closed:
		t.Fatal("Close returned while the server's stdout is open: the test proves nothing")
	default:
	}
	_ = cmd.Process.Kill()
	<-closed
	_ = cmd.Wait()
}
