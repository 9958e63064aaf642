package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A notification read before a response is handled before that response
// reaches its caller: the wire order is the truth. The burst tool writes
// its progress notifications, a log and the answer in one write, so all
// of them arrive in one read; Call returns only once the dispatcher has
// delivered every one of them, lossy or lossless, however slow the
// consumer.
func TestNotificationsReadBeforeAResponseAreDeliveredFirst(t *testing.T) {
	for _, lossless := range []bool{false, true} {
		t.Run(fmt.Sprintf("lossless=%v", lossless), func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			s := startServer(t, jsonrpctest.ProgressBurst, serverOpts{conn: jsonrpc.Options{
				Lossless: lossless,
				OnNotification: func(n jsonrpc.Notification) {
					var p struct {
						Progress float64 `json:"progress"`
						Data     string  `json:"data"`
					}
					_ = json.Unmarshal(n.Params, &p) // a consumer that does some work per notification
					mu.Lock()
					got = append(got, fmt.Sprintf("%s %g%s", n.Method, p.Progress, p.Data))
					mu.Unlock()
				},
			}})
			initialize(t, s.conn)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			const steps = 40
			for round := range 20 {
				mu.Lock()
				got = got[:0]
				mu.Unlock()
				token := fmt.Sprintf("t%d", round)
				params := map[string]any{"name": "burst", "arguments": map[string]any{"steps": steps}, "_meta": map[string]any{"progressToken": token}}
				if _, err := s.conn.Call(ctx, "tools/call", params); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				n, last := len(got), ""
				if n > 0 {
					last = got[n-1]
				}
				first := append([]string(nil), got[:min(n, 2)]...)
				mu.Unlock()
				if n != steps+1 || last != fmt.Sprintf("notifications/message 0burst of %d done", steps) {
					t.Fatalf("round %d: when the call returned, %d of the %d notifications written before its answer were delivered (first %q, last %q)",
						round, n, steps+1, first, last)
				}
			}
		})
	}
}
