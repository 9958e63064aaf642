//go:build unix

package gateway

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestTwoClientsSameNameSameAddress: two processes of the TypeScript SDK
// v2 client, same clientInfo, both over loopback, are two clients (two
// rows of the Clients tab), in each era: a legacy one by its session, a
// modern one by the connections it sends on (stateless.go). One process is
// one client, however many connections its HTTP stack opens (the script
// opens three: its listen stream holds one).
func TestTwoClientsSameNameSameAddress(t *testing.T) {
	t.Parallel()
	jsonrpctest.Node(t)
	rt := newRuntime(t, peerServer("peer"))
	for _, tc := range []struct {
		era       string
		processes int
	}{{"legacy", 2}, {"modern", 1}, {"modern", 2}} {
		era := tc.era
		t.Run(era+"/"+strconv.Itoa(tc.processes), func(t *testing.T) {
			g := newGateway(t, rt, Options{})
			url := serveMux(t, newHTTPMux(g, HTTPOptions{LoopbackOnly: true}))
			events, stop := g.Subscribe()
			defer stop()
			var wg sync.WaitGroup
			for range tc.processes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					jsonrpctest.RunTSClient(t, nil, "--era", era, "--url", url, "--echo", "peer__echo", "--slow", "peer__slow", "--ask", "-", "--add", "-")
				}()
			}
			wg.Wait()
			stop()
			ids := map[string]bool{}
			for e := range events {
				var ci ClientInfo
				switch e := e.(type) {
				case ClientAttached:
					ci = e.Client
				case ClientUpdated:
					ci = e.Client
				case RequestFinished:
					ids[e.Request.Client] = true
					continue
				default:
					continue
				}
				if ci.Name == "mcpdeck-ts-client" {
					ids[ci.ID] = true
				}
			}
			got := slices.Sorted(func(yield func(string) bool) {
				for id := range ids {
					if !yield(id) {
						return
					}
				}
			})
			if len(got) != tc.processes {
				t.Errorf("%d client processes showed as %d clients %v (%d now attached: %+v)", tc.processes, len(got), got, len(g.Clients()), g.Clients())
			}
			for _, ci := range g.Clients() {
				if ci.Totals.Requests == 0 {
					t.Errorf("client %s has no request of its own: %+v", ci.ID, ci)
				}
			}
		})
	}
}
