//go:build unix

package jsonrpc_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// defectWait bounds how long timedOutCall waits for the defect to show.
const defectWait = 10 * time.Second

// timedOutCall calls echo against a server whose defect keeps the call
// unanswered, and returns the error, which must be a timeout. The call's
// deadline passes once the defect has shown (the misaddressed response or
// the notification sent instead has arrived), not after a fixed guess at
// how long that takes: a server descheduled for a while on a loaded CI
// machine answered after a 700ms deadline, and the timeout then had
// nothing to name. defectWait bounds the wait for the defect.
func timedOutCall(t *testing.T, mode jsonrpctest.Mode) *jsonrpc.CancelledError {
	t.Helper()
	var calling atomic.Bool // what arrives during the handshake is no defect
	shown := make(chan struct{}, 1)
	show := func() {
		if calling.Load() {
			select {
			case shown <- struct{}{}:
			default:
			}
		}
	}
	s := startServer(t, mode, serverOpts{conn: jsonrpc.Options{
		// The conn records an arrival before it tells these, so the
		// deadline passes after the record.
		OnAnomaly: func(a jsonrpc.Anomaly) {
			if a.Kind == jsonrpc.AnomalyUnknownResponse || a.Kind == jsonrpc.AnomalyNullID {
				show()
			}
		},
		OnNotification: func(jsonrpc.Notification) { show() },
	}})
	initialize(t, s.conn)
	ctx, expire := context.WithCancelCause(context.Background())
	defer expire(nil)
	go func() {
		select {
		case <-shown:
		case <-time.After(defectWait):
		case <-ctx.Done(): // the call ended some other way
		}
		expire(context.DeadlineExceeded)
	}()
	calling.Store(true)
	_, err := callTool(ctx, s.conn, "echo", map[string]any{"text": "x"})
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	return ce
}

// A timed-out call against a server that answered with the wrong id says
// what arrived instead of only "timed out".
func TestTimeoutNamesResponseWithWrongID(t *testing.T) {
	t.Parallel()
	ce := timedOutCall(t, jsonrpctest.WrongID)
	want := "a response with id " + jsonrpc.FormatID(ce.ID+1000) + ", which matches no request"
	if !strings.Contains(ce.Error(), want) {
		t.Fatalf("error %q does not say %q", ce.Error(), want)
	}
	if len(ce.Arrived.Anomalies) != 1 || ce.Arrived.Anomalies[0].Kind != jsonrpc.AnomalyUnknownResponse {
		t.Fatalf("Arrived = %+v, want the one misaddressed response", ce.Arrived)
	}
}

func TestTimeoutNamesNotificationSentInstead(t *testing.T) {
	t.Parallel()
	ce := timedOutCall(t, jsonrpctest.NotifyInstead)
	if !strings.Contains(ce.Error(), "1 notification (the last notifications/message), which never answer a request") {
		t.Fatalf("error %q does not name the notification that came instead", ce.Error())
	}
}

// A call the caller cancels is only cancelled: what the server sent
// meanwhile is kept in Arrived but not told as if the server were at fault.
func TestUserCancelDoesNotBlameTheServer(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 8)
	s := startServer(t, jsonrpctest.NotifyInstead, serverOpts{conn: jsonrpc.Options{
		OnNotification: func(jsonrpc.Notification) { arrived <- struct{}{} },
	}})
	initialize(t, s.conn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The conn counts a notification before it delivers it, so the
		// cancel comes after the count.
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
		}
		cancel()
	}()
	_, err := callTool(ctx, s.conn, "echo", map[string]any{"text": "x"})
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("err = %v, want a user cancel", err)
	}
	if ce.Arrived.Notifications == 0 {
		t.Fatalf("Arrived = %+v, want the notification counted", ce.Arrived)
	}
	if strings.Contains(ce.Error(), "meanwhile") {
		t.Fatalf("error %q blames the server for a user's cancel", ce.Error())
	}
}

// An error with a null id answers no request; it is not "id 0".
func TestNullIDErrorIsNotIDZero(t *testing.T) {
	t.Parallel()
	ce := timedOutCall(t, jsonrpctest.NullIDError)
	if !strings.Contains(ce.Error(), "an error with a null id (invalid request: could not read the id (code -32600))") {
		t.Fatalf("err = %v, want a timeout naming the null-id error", ce)
	}
	if len(ce.Arrived.Anomalies) != 1 {
		t.Fatalf("Arrived = %+v, want the one null-id error", ce.Arrived)
	}
	if a := ce.Arrived.Anomalies[0]; a.Kind != jsonrpc.AnomalyNullID || a.ID != "null" {
		t.Fatalf("anomaly = %+v, want a null-id error, not id 0", a)
	}
}

// A response nested beyond encoding/json's limit used to be skipped as
// stdout noise, leaving its request to hang; it fails that request at once.
func TestUndecodableResponseFailsItsRequest(t *testing.T) {
	t.Parallel()
	s := startServer(t, jsonrpctest.DeepResponse, serverOpts{})
	initialize(t, s.conn)
	_, err := callTool(ctxTimeout(t, 10*time.Second), s.conn, "echo", map[string]any{"text": "x"})
	var ue *jsonrpc.UndecodableError
	if !errors.As(err, &ue) || !errors.Is(err, jsonrpc.ErrUndecodable) || ue.Method != "tools/call" {
		t.Fatalf("err = %v, want an *UndecodableError for tools/call", err)
	}
	if !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("error %q does not say why it could not be decoded", err)
	}
	if n := s.conn.Stats().NoiseLines; n != 0 {
		t.Errorf("the response was counted as %d noise line(s)", n)
	}
	if _, err := s.conn.Call(ctxTimeout(t, 10*time.Second), "ping", nil); err != nil {
		t.Fatalf("ping after the undecodable response: %v", err)
	}
}
