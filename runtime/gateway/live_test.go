package gateway

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

var peerEnv = jsonrpctest.EnvMode + "=" + string(jsonrpctest.GoSDKModern)

// Two clients at once over HTTP, one legacy and one modern, share the one
// server process the runtime started; killing a third client mid-call
// cancels its request and leaves that server healthy for the others.
func TestClientsShareOneServerProcess(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{IdleTimeout: 300 * time.Millisecond})
	url := serveHTTP(t, g)
	procs := childProcs(t, peerEnv)
	pid := rt.Snapshot().Servers[0].PID
	if len(procs) != 1 || procs[0] != pid {
		t.Fatalf("before the clients: peer processes %v, the runtime's is %d", procs, pid)
	}
	events, stop := g.Subscribe()
	defer stop()

	ctx := ctxFor(t, 60*time.Second)
	a := connect(t, goClient("client-a", newClientEvents()), httpTransport(url), "legacy")
	b := connect(t, goClient("client-b", newClientEvents()), httpTransport(url), "modern")
	var wg sync.WaitGroup
	for i, cs := range []*mcp.ClientSession{a, b, a, b} {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x" + string(rune('0'+i))}})
			if err != nil || textOf(res) != "x"+string(rune('0'+i)) {
				t.Errorf("call %d: %v %+v", i, err, res)
			}
		})
	}
	wg.Wait()
	if got := childProcs(t, peerEnv); len(got) != 1 || got[0] != pid {
		t.Fatalf("with two clients: peer processes %v, want just %d", got, pid)
	}
	clients := g.Clients()
	var seen []string
	for _, c := range clients {
		seen = append(seen, c.Name+"/"+c.Era.String()+"/"+c.Session)
		if c.Transport != TransportHTTP || c.Totals.Requests == 0 {
			t.Errorf("client %+v", c)
		}
	}
	slices.Sort(seen)
	if strings.Join(seen, " ") != "client-a/legacy/session client-b/modern/stateless" {
		t.Fatalf("clients: %v", seen)
	}

	// A third client, a process, killed while its call runs.
	rtEvents, stopRT := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 14})
	defer stopRT()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envClient+"="+url, "GORACE=atexit_sleep_ms=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := waitFor(t, "the doomed client's call", events, func(e Event) bool {
		s, ok := e.(RequestStarted)
		return ok && s.Request.Name == "peer__slow"
	}).(RequestStarted)
	sent := waitFor(t, "the call reaching the server", rtEvents, func(e runtime.Event) bool {
		s, ok := e.(runtime.RequestStarted)
		return ok && s.Server == "peer" && s.Tool == "slow"
	}).(runtime.RequestStarted)
	fwd := waitFor(t, "the call forwarded", events, func(e Event) bool {
		f, ok := e.(RequestForwarded)
		return ok && f.Request.Client == started.Request.Client
	}).(RequestForwarded)
	// The Requests view can tell whose call the runtime's request is.
	if r, ok := g.RequestOf("peer", sent.ID); fwd.Request.UpstreamID != sent.ID || !ok || r.Client != started.Request.Client || r.Name != "peer__slow" {
		t.Fatalf("RequestOf(peer, %d) = %+v, %v (forwarded as %d); want the doomed client's", sent.ID, r, ok, fwd.Request.UpstreamID)
	}
	// Killed only once the server runs the tool (its first progress): a
	// client gone before the request reached the server leaves it nothing
	// to cancel.
	waitFor(t, "the tool running on the server", rtEvents, func(e runtime.Event) bool {
		p, ok := e.(runtime.Progress)
		return ok && p.Server == "peer" && p.RequestID == sent.ID
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitFor(t, "the server told of the cancellation", rtEvents, func(e runtime.Event) bool {
		l, ok := e.(runtime.StderrLine)
		return ok && strings.Contains(l.Line, "cancelled slow")
	})
	waitFor(t, "the killed client detached when idle", events, func(e Event) bool {
		d, ok := e.(ClientDetached)
		return ok && d.Client.ID == started.Request.Client
	})
	if v, _ := rt.Snapshot().Server("peer"); !v.State.Live() || v.PID != pid {
		t.Fatalf("the server after the kill: %s pid %d", v.State, v.PID)
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "still"}}); err != nil || textOf(res) != "still" {
			t.Fatalf("a surviving client: %v %+v", err, res)
		}
	}
}

// Switching MCP off leaves clients attached and tells them the offer is
// empty; switching it on brings the offer back.
func TestDisableMCPKeepsClientsAndTellsThem(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	ctx := ctxFor(t, 60*time.Second)
	events, stop := g.Subscribe()
	defer stop()
	evLegacy, evModern := newClientEvents(), newClientEvents()
	legacy := connect(t, goClient("legacy", evLegacy), pipeTransport(t, g), "legacy")
	modern := connect(t, goClient("modern", evModern), httpTransport(url), "modern")
	// The modern client's listen stream is open once it acknowledged.
	waitListening(t, g, events, "modern")

	if err := rt.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string]*clientEvents{"legacy": evLegacy, "modern": evModern} {
		waitFor(t, name+" told of the empty offer", ev.toolChanged, nil)
	}
	for name, cs := range map[string]*mcp.ClientSession{"legacy": legacy, "modern": modern} {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 0 {
			t.Fatalf("%s: tools while MCP is off: %v %s", name, err, toolNames(tools.Tools))
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
		var rpc *sdkjsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != -32602 || !strings.Contains(rpc.Message, "not offered now") {
			t.Fatalf("%s: a call while MCP is off: %v", name, err)
		}
	}
	if len(g.Clients()) != 2 {
		t.Fatalf("clients after disable: %+v", g.Clients())
	}
	initOff := legacy.InitializeResult().Instructions
	if !strings.Contains(initOff, "peer") {
		t.Fatalf("instructions at initialize: %q", initOff)
	}

	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string]*clientEvents{"legacy": evLegacy, "modern": evModern} {
		waitFor(t, name+" told of the offer back", ev.toolChanged, nil)
	}
	for name, cs := range map[string]*mcp.ClientSession{"legacy": legacy, "modern": modern} {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "back"}}); err != nil || textOf(res) != "back" {
			t.Fatalf("%s after enable: %v %+v", name, err, res)
		}
	}
}

// waitListening waits until the client named name has a listen stream.
func waitListening(t testing.TB, g *Gateway, events <-chan Event, name string) {
	t.Helper()
	for _, c := range g.Clients() {
		if c.Name == name && c.Listens > 0 {
			return
		}
	}
	waitFor(t, name+" opening a listen stream", events, func(e Event) bool {
		u, ok := e.(ClientUpdated)
		return ok && u.Client.Name == name && u.Client.Listens > 0
	})
}

// A server switched off while a client's call runs ends that call with a
// clear error at once, never a hang.
func TestToolGoneMidFlight(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			ctx := ctxFor(t, 60*time.Second)
			if err := rt.SetServerEnabled(ctx, "peer", true); err != nil {
				t.Fatal(err)
			}
			ev := newClientEvents()
			cs := connect(t, goClient(era, ev), httpTransport(url), era)
			errc := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 30}}
				p.SetProgressToken("gone")
				_, err := cs.CallTool(ctx, p)
				errc <- err
			}()
			waitFor(t, "the call running on the server", ev.progress, nil)
			start := time.Now()
			if err := rt.SetServerEnabled(ctx, "peer", false); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-errc:
			case <-time.After(20 * time.Second):
				t.Fatal("the call hangs after its server was switched off")
			}
			var rpc *sdkjsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != CodeUnavailable || !strings.Contains(rpc.Message, `server "peer" went away while the request was in flight`) {
				t.Fatalf("the call's error: %v", err)
			}
			wantKind(t, "a call whose server went away", rpc, "unavailable", runtime.KindExited, runtime.KindClosed)
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("the error took %s", took)
			}
		})
	}
}

// The operator disconnects clients: a stdio client's connection ends, a
// legacy session is gone, a stateless client's request is cancelled on
// the server and its next request attaches it anew.
func TestDisconnect(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	ctx := ctxFor(t, 60*time.Second)
	events, stop := g.Subscribe()
	defer stop()
	stdio := connect(t, goClient("stdio-client", newClientEvents()), pipeTransport(t, g), "legacy")
	session := connect(t, goClient("session-client", newClientEvents()), httpTransport(url), "legacy")
	evModern := newClientEvents()
	modern := connect(t, goClient("stateless-client", evModern), httpTransport(url), "modern")

	ids := map[string]string{}
	for _, c := range g.Clients() {
		ids[c.Name] = c.ID
	}
	if len(ids) != 3 {
		t.Fatalf("clients: %+v", g.Clients())
	}

	if !g.Disconnect(ids["stdio-client"]) || g.Disconnect(ids["stdio-client"]) {
		t.Fatal("Disconnect reports wrongly")
	}
	d := waitFor(t, "the stdio client detached", events, func(e Event) bool { d, ok := e.(ClientDetached); return ok && d.Client.Name == "stdio-client" }).(ClientDetached)
	if d.Reason != "disconnected by the operator" {
		t.Fatalf("reason %q", d.Reason)
	}
	ended := make(chan error, 1)
	go func() { ended <- stdio.Wait() }()
	select {
	case <-ended: // the gateway closed the client's stream
	case <-ctx.Done():
		t.Fatal("the disconnected stdio client's connection is still open")
	}

	g.Disconnect(ids["session-client"])
	if _, err := session.ListTools(ctx, nil); err == nil {
		t.Fatal("a disconnected session still answers")
	}

	rtEvents, stopRT := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 12})
	defer stopRT()
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 30}}
		p.SetProgressToken("d")
		_, err := modern.CallTool(ctx, p)
		errc <- err
	}()
	waitFor(t, "the stateless client's call running", evModern.progress, nil)
	g.Disconnect(ids["stateless-client"])
	waitFor(t, "the server told of the cancellation", rtEvents, func(e runtime.Event) bool {
		l, ok := e.(runtime.StderrLine)
		return ok && strings.Contains(l.Line, "cancelled slow")
	})
	if err := <-errc; err == nil {
		t.Fatal("the disconnected client's call succeeded")
	}
	if res, err := modern.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "again"}}); err != nil || textOf(res) != "again" {
		t.Fatalf("a stateless client after its disconnect: %v %+v", err, res)
	}
	if c := clientNamed(g, "stateless-client"); c.ID == "" || c.ID == ids["stateless-client"] {
		t.Fatalf("the stateless client came back as %q (was %q)", c.ID, ids["stateless-client"])
	}
}

// A reconnect withdraws a server's tools while it is down and brings them
// back, and a reload that adds a server adds its tools: clients are told,
// and a call right after the runtime's answer finds the tools.
func TestReloadChangesTheOffer(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{})
	ctx := ctxFor(t, 60*time.Second)
	ev := newClientEvents()
	cs := connect(t, goClient("reloaded", ev), pipeTransport(t, g), "legacy")

	if err := rt.Reconnect(ctx, "peer"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "after reconnect"}}); err != nil {
		t.Fatalf("a call right after the reconnect: %v", err)
	}
	waitFor(t, "tools/list_changed for the reconnect", ev.toolChanged, nil)

	if _, err := rt.Reload(ctx, &config.Config{Servers: []config.Server{peerServer("peer"), demoServer("demo")}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "tools/list_changed after the reload", ev.toolChanged, nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || !strings.Contains(toolNames(tools.Tools), "demo__echo") {
		t.Fatalf("after the reload: %v %s", err, toolNames(tools.Tools))
	}
}
