package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/uitest"
)

// fakeToken is the fake gateway's token: no frame may ever show it.
const fakeToken = "tok-SECRET-0123456789abcdef"

// serveFake runs the UI at w×h over rt, serving g; the gateway's events
// reach the program as Run would bring them.
func serveFake(t *testing.T, rt *uitest.Runtime, g *uitest.Gateway, w, h int, mod ...func(*Options)) *harness {
	t.Helper()
	mod = append([]func(*Options){func(o *Options) {
		o.Serving = &Serving{Gateway: g, URL: "http://127.0.0.1:8765/mcp", Token: fakeToken}
	}}, mod...)
	hs := start(t, rt, w, h, mod...)
	t.Cleanup(AttachGateway(g, hs.tm.Send))
	// No frame, ever, draws the token.
	hs.p.mu.Lock()
	hs.p.onFrame = func(v string) {
		if strings.Contains(v, fakeToken) {
			t.Errorf("a frame shows the gateway token:\n%s", v)
		}
	}
	hs.p.mu.Unlock()
	return hs
}

// twoClients attaches the fixture clients: a legacy HTTP session with a
// tools/call forwarded to everything as its request 7, and a modern
// stateless client with nothing in flight.
func twoClients(g *uitest.Gateway) (legacy, modern string) {
	legacy = g.Attach(gateway.ClientInfo{Name: "claude-code", Title: "Claude Code", Version: "2.1.0", Era: mcp.Legacy, Protocol: "2025-11-25",
		Transport: gateway.TransportHTTP, Session: "session", Remote: "127.0.0.1:53422", Since: uitest.Clock.Add(-12*time.Minute - 4*time.Second),
		Totals: gateway.Totals{Requests: 41, Errors: 2, Cancelled: 1, Notifications: 118}})
	modern = g.Attach(gateway.ClientInfo{Name: "mcpdeck-ts-client", Version: "0.1.0", Era: mcp.Modern, Protocol: "2026-07-28",
		Transport: gateway.TransportHTTP, Session: "stateless", Remote: "127.0.0.1:53430", Since: uitest.Clock.Add(-9 * time.Second),
		Totals: gateway.Totals{Requests: 3}})
	g.Start(legacy, gateway.Request{ID: "17", Method: "tools/call", Name: "everything__longRunningOperation", Started: uitest.Clock.Add(-12 * time.Second)})
	g.Forward(legacy, "17", "everything", 7)
	return legacy, modern
}

// outstanding publishes the runtime's request 7 to everything, the one
// the legacy client's call became.
func outstanding(rt *uitest.Runtime) {
	rt.Publish(func(s *runtime.Snapshot) {
		for i := range s.Servers {
			if s.Servers[i].Name == "everything" {
				s.Servers[i].Outstanding = []runtime.RequestInfo{{ID: 7, Server: "everything", Method: "tools/call",
					Tool: "longRunningOperation", Started: uitest.Clock.Add(-12 * time.Second)}}
			}
		}
	})
}

func TestGoldenClients(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		g := uitest.NewGateway(uitest.Now)
		twoClients(g)
		hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, w, h)
		hs.keys("0")
		v := hs.waitText("clients 2", "[0 Clients]", "claude-code", "mcpdeck-ts-client", "everything__lo", "#7", "sha256:")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenRequestsOfClients(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		g := uitest.NewGateway(uitest.Now)
		twoClients(g)
		rt := uitest.New(uitest.ReadySnapshot())
		hs := serveFake(t, rt, g, w, h)
		hs.keys("3")
		hs.waitText("clients 2", "0 outstanding")
		outstanding(rt)
		v := hs.waitText("CLIENT", "claude-code", "longRunningOpe")
		golden.RequireEqual(t, []byte(v))
	})
}

// D disconnects the selected client: after a confirmation when it has
// requests in flight (which the gateway cancels), at once otherwise; the
// list, the header and the status follow.
func TestClientsDisconnectKey(t *testing.T) {
	t.Parallel()
	g := uitest.NewGateway(uitest.Now)
	legacy, _ := twoClients(g)
	hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, 120, 35)
	hs.keys("0", "tab")
	hs.waitText("clients 2", "›c1")
	hs.keys("D")
	hs.waitText("Disconnect claude-code (c1)?", "1 request in flight will be cancelled")
	hs.keys("n")
	hs.waitView("the dialog closed", func(v string) bool { return !strings.Contains(v, "Disconnect claude-code") })
	if len(g.Clients()) != 2 {
		t.Fatal("n disconnected the client")
	}
	hs.keys("D")
	hs.waitText("Disconnect claude-code (c1)?")
	hs.keys("y")
	hs.waitText("disconnected claude-code (c1); its requests were cancelled", "clients 1", "›c2")
	if _, ok := clientByID(g, legacy); ok {
		t.Fatal("the gateway still has the client")
	}
	// Nothing in flight: no question.
	hs.keys("D")
	hs.waitText("disconnected mcpdeck-ts-client (c2)", "clients 0", "No client attached")
	// A stateless client is only grouped by its requests: the status says
	// it comes back with the next one.
	hs.waitText("its next request brings it back")
}

func clientByID(g *uitest.Gateway, id string) (gateway.ClientInfo, bool) {
	for _, c := range g.Clients() {
		if c.ID == id {
			return c, true
		}
	}
	return gateway.ClientInfo{}, false
}

// y in the Clients tab copies the token itself (the screen shows only its
// fingerprint); a client that leaves on its own is reported with why.
func TestClientsCopyTokenAndLeave(t *testing.T) {
	t.Parallel()
	g := uitest.NewGateway(uitest.Now)
	_, modern := twoClients(g)
	var mu sync.Mutex
	var copied []string
	hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, 120, 35, func(o *Options) {
		o.Clipboard = func(s string) error {
			mu.Lock()
			defer mu.Unlock()
			copied = append(copied, s)
			return nil
		}
	})
	hs.keys("0", "tab")
	hs.waitText("token " + tokenFingerprint(fakeToken))
	hs.keys("y")
	hs.waitText("copied the gateway token")
	mu.Lock()
	got := strings.Join(copied, "|")
	mu.Unlock()
	if got != fakeToken {
		t.Fatalf("copied %q, want the token", got)
	}
	g.Leave(modern, "idle for 30m0s")
	hs.waitText("client mcpdeck-ts-client (c2) left: idle for 30m0s", "clients 1")
}

// Without --serve there is no Clients tab, 0 does nothing, and the
// header counts no clients.
func TestNoClientsTabWithoutServing(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 120, 35)
	hs.keys("0", "3")
	v := hs.waitText("[3 Requests]")
	if strings.Contains(v, "Clients") || strings.Contains(v, "clients") || strings.Contains(v, "CLIENT") {
		t.Fatalf("a session that serves nothing shows clients:\n%s", v)
	}
}

// Ten tabs fit 80 columns: the titles shorten further rather than the
// last tab being cut off.
func TestTenTabsFitEightyColumns(t *testing.T) {
	t.Parallel()
	g := uitest.NewGateway(uitest.Now)
	hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, 80, 24)
	for k, active := range map[string]string{"1": "[1 Overview]", "9": "[9 Prompts]", "0": "[0 Clients]"} {
		hs.keys(k)
		v := hs.waitText(active)
		var bar string
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, active) {
				bar = l
			}
		}
		for _, title := range []string{"1 ", "2 ", "3 ", "4 ", "5 ", "6 ", "7 ", "8 ", "9 ", "0 "} {
			if !strings.Contains(bar, title) {
				t.Errorf("with %s active the tab bar has no %q: %q", active, title, bar)
			}
		}
	}
}

// q closes the gateway (its clients are told) before the runtime shuts
// the servers down.
func TestQuitClosesTheGatewayFirst(t *testing.T) {
	t.Parallel()
	g := uitest.NewGateway(uitest.Now)
	twoClients(g)
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldShutdown = make(chan struct{})
	hs := serveFake(t, rt, g, 120, 35)
	hs.waitText("clients 2")
	hs.keys("q")
	hs.action("shutdown")
	closed := g.Closed()
	close(rt.HoldShutdown)
	if !closed {
		t.Fatal("the runtime was shut down while the gateway still served its clients")
	}
}
