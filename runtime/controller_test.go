package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestNewStartsNothing(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("a", jsonrpctest.Normal), fakeServer("b", jsonrpctest.Normal))
	snap := c.Snapshot()
	if snap.Enabled {
		t.Fatal("MCP is on before anyone enabled it")
	}
	for _, v := range snap.Servers {
		if v.State != StateDisabled || v.PID != 0 {
			t.Fatalf("server %s is %s (pid %d) before enable", v.Name, v.State, v.PID)
		}
	}
	_, err := c.Call(ctxFor(t, time.Second), CallRequest{Server: "a", Tool: "echo"})
	if !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("call while off: %v, want ErrNotEnabled", err)
	}
	if _, err := c.Reload(ctxFor(t, time.Second), nil); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("reload while off: %v, want ErrNotEnabled", err)
	}
}

func TestEnablePublishesCapabilitiesTogether(t *testing.T) {
	t.Parallel()
	c := newController(t,
		fakeServer("fast", jsonrpctest.Normal),
		fakeServer("slow", jsonrpctest.SlowInit, jsonrpctest.WithDelay(1500*time.Millisecond)))
	rec := record(t, c)
	done := make(chan error, 1)
	go func() { done <- c.SetEnabled(context.Background(), true) }()

	rec.waitFor(t, "fast ready", stateIs("fast", StateReady))
	// The fast server is ready, but nothing is published until the slow one is.
	snap := c.Snapshot()
	if len(snap.Tools) != 0 {
		t.Fatalf("tools published before every server was done: %s", toolNames(snap.Tools))
	}
	if v, _ := snap.Server("slow"); v.State == StateReady {
		t.Fatal("slow server ready too early: the test proves nothing")
	}
	if err := <-done; err != nil {
		t.Fatalf("enable: %v", err)
	}
	snap = c.Snapshot()
	fast, _ := snap.Server("fast")
	slow, _ := snap.Server("slow")
	if !fast.State.Live() || !slow.State.Live() || len(fast.Tools) == 0 || len(fast.Tools) != len(slow.Tools) {
		t.Fatalf("after enable: fast %s %d tools, slow %s %d tools", fast.State, len(fast.Tools), slow.State, len(slow.Tools))
	}
	if len(snap.Tools) != len(fast.Tools)+len(slow.Tools) {
		t.Fatalf("published %d tools, servers have %d", len(snap.Tools), len(fast.Tools)+len(slow.Tools))
	}
	if !strings.Contains(toolNames(snap.Tools), "fast__echo") || !strings.Contains(toolNames(snap.Tools), "slow__echo") {
		t.Fatalf("normalized names: %s", toolNames(snap.Tools))
	}
	if fast.ProtocolVersion != "2025-11-25" || fast.ServerInfo.Name == "" {
		t.Fatalf("initialize result not recorded: %+v", fast)
	}
}

func TestDisableWithdrawsBeforeClosing(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("a", jsonrpctest.Normal), fakeServer("b", jsonrpctest.IgnoreEOF))
	enable(t, c)
	pids := []int{serverOf(t, c, "a").PID, serverOf(t, c, "b").PID}
	rec := record(t, c)
	if err := c.SetEnabled(ctxFor(t, 30*time.Second), false); err != nil {
		t.Fatal(err)
	}
	// Every process is gone when disable returns.
	for _, pid := range pids {
		if !jsonrpctest.ProcessGone(pid) {
			t.Fatalf("process %d still running after disable returned", pid)
		}
	}
	// Order: the withdrawal is published before any server starts stopping.
	withdrawn := -1
	for i, e := range drain(rec) {
		switch e := e.(type) {
		case Published:
			if !e.Enabled && withdrawn < 0 {
				withdrawn = i
			}
		case StateChanged:
			if e.To == StateStopping && (withdrawn < 0 || i < withdrawn) {
				t.Fatalf("server %s was stopping before capabilities were withdrawn (event %d, withdrawal %d)", e.Server, i, withdrawn)
			}
		}
	}
	if withdrawn < 0 {
		t.Fatal("no withdrawal published")
	}
	snap := c.Snapshot()
	if snap.Enabled || len(snap.Tools) != 0 {
		t.Fatalf("after disable: enabled=%v tools=%d", snap.Enabled, len(snap.Tools))
	}
	if b, _ := snap.Server("b"); b.State != StateStopped || b.LastStop.Step != StopSIGTERM {
		t.Fatalf("b: state %s, stopped by %q; want stopped by SIGTERM (it ignores stdin EOF)", b.State, b.LastStop.Step)
	}
}

// drain returns what the recorder saw plus whatever is queued now.
func drain(r *recorder) []Event {
	for {
		select {
		case e := <-r.ch:
			r.seen = append(r.seen, e)
		default:
			return r.seen
		}
	}
}

func TestToggleStormEndsInLastState(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("a", jsonrpctest.Normal), fakeServer("b", jsonrpctest.Normal))
	var replies []chan reply
	for i := 0; i <= 100; i++ { // 101 commands: the last one enables
		r := make(chan reply, 1)
		replies = append(replies, r)
		c.cmds <- command{kind: cmdSetEnabled, on: i%2 == 0, reply: r}
	}
	for i, r := range replies {
		select {
		case rep := <-r:
			if i == len(replies)-1 && rep.err != nil {
				t.Fatalf("last command: %v", rep.err)
			}
			if rep.err != nil && !errors.Is(rep.err, ErrSuperseded) {
				t.Fatalf("command %d: %v", i, rep.err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("command %d never answered", i)
		}
	}
	snap := c.Snapshot()
	if !snap.Enabled {
		t.Fatal("the last command enabled MCP, but it is off")
	}
	for _, v := range snap.Servers {
		if v.State != StateReady {
			t.Fatalf("server %s is %s", v.Name, v.State)
		}
	}
	a, b := serverOf(t, c, "a").PID, serverOf(t, c, "b").PID
	if err := c.SetEnabled(ctxFor(t, 30*time.Second), false); err != nil {
		t.Fatal(err)
	}
	if !jsonrpctest.ProcessGone(a) || !jsonrpctest.ProcessGone(b) {
		t.Fatal("a process survived the storm's final disable")
	}
}

func TestReloadAppliesPlan(t *testing.T) {
	t.Parallel()
	keep, change, remove := fakeServer("keep", jsonrpctest.Normal), fakeServer("change", jsonrpctest.Normal), fakeServer("remove", jsonrpctest.Normal)
	c := newController(t, keep, change, remove, fakeServer("off", jsonrpctest.Normal))
	enable(t, c)
	before := c.Snapshot()
	pid := func(s *Snapshot, n string) int { v, _ := s.Server(n); return v.PID }

	changed := change
	changed.Env = map[string]string{}
	for k, v := range change.Env {
		changed.Env[k] = v
	}
	changed.Env["SOMETHING"] = "new"
	switchedOff := fakeServer("off", jsonrpctest.Normal)
	switchedOff.Enabled = false
	cfg := configOf(keep, changed, fakeServer("add", jsonrpctest.Normal), switchedOff)
	rec := record(t, c)
	plan, err := c.Reload(ctxFor(t, 30*time.Second), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// "off" was switched off in the file: stopped, not restarted.
	want := Plan{Add: []string{"add"}, Remove: []string{"remove"}, Restart: []string{"change"}, Keep: []string{"keep"}, Stop: []string{"off"}}
	if !reflect.DeepEqual(plan, want) {
		t.Fatalf("plan = %+v, want %+v", plan, want)
	}
	// Reload returns once the added and restarted servers are up; the
	// removed and switched-off ones close in the background (their stop
	// sequence may take longer than a restart under load), and their last
	// state change says when they are gone.
	rec.waitAny(t, "the removed server stopped", stateIs("remove", StateStopped))
	rec.waitAny(t, "the switched-off server disabled", stateIs("off", StateDisabled))
	after := c.Snapshot()
	if pid(after, "keep") != pid(before, "keep") {
		t.Fatal("the unchanged server was restarted")
	}
	if pid(after, "change") == pid(before, "change") || !serverOf(t, c, "change").State.Live() {
		t.Fatal("the changed server was not restarted")
	}
	if _, ok := after.Server("remove"); ok || !jsonrpctest.ProcessGone(pid(before, "remove")) {
		t.Fatal("the removed server is still there")
	}
	if !serverOf(t, c, "add").State.Live() {
		t.Fatal("the added server is not ready")
	}
	if v := serverOf(t, c, "off"); v.State != StateDisabled || v.PID != 0 {
		t.Fatalf("a running server the new configuration disables is %s (pid %d), want disabled", v.State, v.PID)
	}
	if !strings.Contains(toolNames(after.Tools), "add__echo") {
		t.Fatalf("added server's tools not published: %s", toolNames(after.Tools))
	}
}

func TestCallThroughTheBridge(t *testing.T) {
	t.Parallel()
	c := newController(t, demoServer("demo"))
	enable(t, c)
	ctx := ctxFor(t, 20*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi there"}`)})
	if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "hi there") {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	// By normalized name, with structured content validated against the output schema.
	res, err = c.Call(ctx, CallRequest{Server: "demo", Tool: "demo__add", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	if err != nil || string(res.StructuredContent) == "" || res.StructuredError != "" {
		t.Fatalf("add = %+v, %v", res, err)
	}
	res, err = c.Call(ctx, CallRequest{Server: "demo", Tool: "fail"})
	if err != nil || !res.IsError {
		t.Fatalf("fail = %+v, %v; want an isError result", res, err)
	}
	// Arguments are validated before sending, unless told not to.
	_, err = c.Call(ctx, CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":5}`)})
	var argErr *ArgumentsError
	if !errors.As(err, &argErr) || !errors.Is(err, ErrInvalidArguments) || argErr.Fields[0].Path != "/text" {
		t.Fatalf("invalid arguments: %v", err)
	}
	res, err = c.Call(ctx, CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":5}`), NoValidate: true})
	if err != nil || !res.IsError {
		t.Fatalf("--no-validate: %+v, %v; the server itself should reject it with isError", res, err)
	}
	_, err = c.Call(ctx, CallRequest{Server: "demo", Tool: "nope"})
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, ErrUnknownTool) || ce.Info.Kind != KindUnknownTool {
		t.Fatalf("unknown tool: %v", err)
	}
	_, err = c.Call(ctx, CallRequest{Server: "ghost", Tool: "echo"})
	if !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("unknown server: %v", err)
	}
	// Four calls reached the server; two came back isError. Calls refused
	// before sending (bad arguments, unknown tool) are not counted.
	if got := serverOf(t, c, "demo").Counters; got.Calls != 4 || got.Errors != 2 {
		t.Fatalf("counters: %d calls, %d errors; want 4 and 2", got.Calls, got.Errors)
	}
}

func TestResultsAreBounded(t *testing.T) {
	t.Parallel()
	c := New(Options{Config: configOf(fakeServer("f", jsonrpctest.Normal)), ResultLimit: 1000, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	enable(t, c)
	res, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "f", Tool: "big", Arguments: json.RawMessage(`{"bytes":5000}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.OriginalSize != 5000 || !strings.Contains(res.Content[0].Text, "truncated by mcpdeck") || len(res.Content[0].Text) > 1200 {
		t.Fatalf("big result not bounded: truncated=%v size=%d len=%d", res.Truncated, res.OriginalSize, len(res.Content[0].Text))
	}
}

func TestTimeoutProgressAndCancel(t *testing.T) {
	t.Parallel()
	c := New(Options{Config: configOf(fakeServer("f", jsonrpctest.Normal), fakeServer("h", jsonrpctest.Hang)),
		MaxCallTime: 3 * time.Second, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	enable(t, c)
	rec := record(t, c)

	// Progress every 50 ms keeps a 1 s timeout alive through a 2 s call.
	// (A 300 ms timeout failed the call whenever the server or mcpdeck
	// stalled 250 ms between two notifications, which a loaded CI machine
	// does: the margin is now 950 ms.)
	res, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "f", Tool: "slow", Arguments: json.RawMessage(`{"seconds":2}`), Timeout: time.Second})
	if err != nil || res.IsError {
		t.Fatalf("slow call with progress: %+v, %v", res, err)
	}
	rec.waitFor(t, "progress routed to the call", func(e Event) bool { p, ok := e.(Progress); return ok && p.RequestID == res.RequestID })

	// ...but not past the maximum.
	_, err = c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "f", Tool: "slow", Arguments: json.RawMessage(`{"seconds":10}`), Timeout: time.Second})
	if !errors.Is(err, jsonrpc.ErrTimeout) || !strings.Contains(err.Error(), "maximum") {
		t.Fatalf("call past the maximum: %v", err)
	}

	// No progress: the timeout fires and the server is told.
	_, err = c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "h", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`), Timeout: 200 * time.Millisecond})
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("hanging call: %v", err)
	}
	rec.waitFor(t, "cancellation event", func(e Event) bool { rc, ok := e.(RequestCancelled); return ok && rc.Server == "h" })
	rec.waitAny(t, "server told of the cancellation", func(e Event) bool {
		l, ok := e.(StderrLine)
		return ok && l.Server == "h" && strings.Contains(l.Line, "cancelled")
	})

	// Cancel by id while outstanding.
	ids := make(chan uint64, 1)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "h", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`), OnStarted: func(id uint64) { ids <- id }})
		errc <- err
	}()
	id := <-ids
	if out := serverOf(t, c, "h").Outstanding; len(out) != 1 || out[0].ID != id || out[0].Tool != "echo" {
		t.Fatalf("outstanding = %+v", out)
	}
	if !c.Cancel("h", id, "user pressed x") {
		t.Fatal("Cancel found nothing outstanding")
	}
	if err := <-errc; !errors.Is(err, jsonrpc.ErrCancelled) || errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("cancelled call: %v", err)
	}
}

func TestCrashRejectsOutstandingAndReconnects(t *testing.T) {
	t.Parallel()
	srv := fakeServer("c", jsonrpctest.CrashOnCall)
	srv.AutoReconnect.Enabled, srv.AutoReconnect.MaxAttempts = true, 3
	srv.AutoReconnect.InitialBackoff, srv.AutoReconnect.MaxBackoff = 50*time.Millisecond, time.Second
	c := newController(t, srv)
	enable(t, c)
	pid := serverOf(t, c, "c").PID
	rec := record(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "c", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "exited with status 3") || ce.Info.Kind != KindExited || !errors.Is(err, ErrProcessExited) {
		t.Fatalf("call during crash: %v", err)
	}
	e := rec.waitFor(t, "failed", stateIs("c", StateFailed)).(StateChanged)
	if !strings.Contains(e.Reason, "status 3") {
		t.Fatalf("failure reason %q does not carry the exit status", e.Reason)
	}
	rec.waitFor(t, "automatic reconnect", stateIs("c", StateReady))
	v := serverOf(t, c, "c")
	if v.Restarts != 1 || v.PID == pid || !jsonrpctest.ProcessGone(pid) || len(v.Tools) == 0 {
		t.Fatalf("after reconnect: restarts %d, pid %d (was %d), tools %d", v.Restarts, v.PID, pid, len(v.Tools))
	}
	if len(v.Stderr) == 0 && v.LastError == nil {
		t.Fatal("nothing kept of the crash")
	}
}

func TestListChangedRepublishes(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("f", jsonrpctest.Normal))
	enable(t, c)
	rec := record(t, c)
	gen := c.Snapshot().Generation
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "f", Tool: "notify_changed"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "list changed", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" && l.Server == "f" })
	if c.Snapshot().Generation <= gen {
		t.Fatal("no republication after list_changed")
	}
}

func TestManualReconnectAndToggle(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("a", jsonrpctest.Normal), fakeServer("b", jsonrpctest.Normal))
	enable(t, c)
	pid := serverOf(t, c, "a").PID
	if err := c.Reconnect(ctxFor(t, 20*time.Second), "a"); err != nil {
		t.Fatal(err)
	}
	v := serverOf(t, c, "a")
	if v.PID == pid || v.Restarts != 1 || !v.State.Live() || !jsonrpctest.ProcessGone(pid) {
		t.Fatalf("reconnect: pid %d→%d restarts %d state %s", pid, v.PID, v.Restarts, v.State)
	}
	bpid := serverOf(t, c, "b").PID
	if err := c.SetServerEnabled(ctxFor(t, 20*time.Second), "b", false); err != nil {
		t.Fatal(err)
	}
	if v := serverOf(t, c, "b"); v.State != StateDisabled || v.Enabled || !jsonrpctest.ProcessGone(bpid) {
		t.Fatalf("b after toggle off: %s enabled=%v", v.State, v.Enabled)
	}
	if strings.Contains(toolNames(c.Snapshot().Tools), "b__") {
		t.Fatal("a disabled server's tools are still published")
	}
	if err := c.SetServerEnabled(ctxFor(t, 20*time.Second), "b", true); err != nil {
		t.Fatal(err)
	}
	if v := serverOf(t, c, "b"); !v.State.Live() || len(v.Tools) == 0 {
		t.Fatalf("b after toggle on: %s", v.State)
	}
}

func TestSecretsNeverInEventsOrSnapshot(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	srv := fakeServer("s", jsonrpctest.SecretLeak, jsonrpctest.WithSecret(secret))
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "s", Tool: "echo", Arguments: json.RawMessage(`{"text":"` + secret + `"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetEnabled(ctxFor(t, 10*time.Second), false); err != nil {
		t.Fatal(err)
	}
	for _, e := range drain(rec) {
		if b, _ := json.Marshal(e); strings.Contains(string(b), secret) {
			t.Fatalf("secret in event %T: %s", e, b)
		}
	}
	rec2 := record(t, c)
	_ = rec2
	enable(t, c)
	snap := c.Snapshot()
	if b, _ := json.Marshal(snap); strings.Contains(string(b), secret) {
		t.Fatalf("secret in snapshot: %s", b)
	}
	if leaks := serverOf(t, c, "s").SecretLeaks; len(leaks) == 0 || !strings.Contains(leaks[0], "echo description") {
		t.Fatalf("leak not reported: %v", leaks)
	}
}

func TestFailedStartsAreReportedNotFatal(t *testing.T) {
	t.Parallel()
	missing := fakeServer("missing", jsonrpctest.Normal)
	missing.Command = "/no/such/server-binary"
	c := newController(t,
		fakeServer("version", jsonrpctest.VersionBad),
		fakeServer("early", jsonrpctest.ExitEarly),
		missing,
		fakeServer("ok", jsonrpctest.Normal))
	enable(t, c) // one bad server must not keep the others from starting
	want := map[string]struct {
		msg           string
		reconnectable bool
	}{
		"version": {"1999-01-01", false},
		"early":   {"fatal: missing API key", true},
		"missing": {"server-binary", false},
	}
	for name, w := range want {
		v := serverOf(t, c, name)
		if v.State != StateFailed || v.LastError == nil || !strings.Contains(v.LastError.Message, w.msg) ||
			v.Reconnectable != w.reconnectable || v.LastError.Kind == KindUnknown {
			t.Errorf("%s: state %s reconnectable %v error %+v; want failed mentioning %q", name, v.State, v.Reconnectable, v.LastError, w.msg)
		}
		if strings.Count(v.LastError.Message, "initialize:") > 1 {
			t.Errorf("%s: repeated prefix in %q", name, v.LastError.Message)
		}
	}
	if !serverOf(t, c, "ok").State.Live() {
		t.Fatal("the good server did not start beside the bad ones")
	}
}

// A server that ran healthily once, then can no longer start, gets its
// reconnect attempts and no more: only a healthy run resets the count,
// not every failure after it.
func TestReconnectAttemptsEndWhenTheServerCannotStart(t *testing.T) {
	// Restored by a cleanup registered before the controller's, so it
	// runs after the controller's loop, which reads it, has stopped (a
	// defer would restore it while the loop still runs).
	old := healthyFor
	t.Cleanup(func() { healthyFor = old })
	healthyFor = 0 // the one run counts as healthy, however short

	// The first start runs the fake server; later starts find the marker
	// and exit at once, as a server whose dependency went away would.
	marker := t.TempDir() + "/started"
	srv := fakeServer("once", jsonrpctest.CrashOnCall)
	srv.Args = append([]string{"-c", `[ -e "$MARKER" ] && exit 1; touch "$MARKER"; exec "$0" "$@"`, srv.Command}, srv.Args...)
	srv.Command = "/bin/sh"
	srv.Env["MARKER"] = marker
	srv.AutoReconnect = config.Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	c := newController(t, srv)
	enable(t, c)
	rec := record(t, c)
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "once", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("call during the crash: %v", err)
	}
	// The crash, then three failed attempts; the last schedules nothing.
	for i := range 4 {
		rec.waitFor(t, fmt.Sprintf("failure %d", i+1), stateIs("once", StateFailed))
	}
	v := serverOf(t, c, "once")
	if v.Restarts != 3 || v.Attempts != 3 || !v.NextRetry.IsZero() {
		t.Fatalf("after the attempts: restarts %d, attempts %d, next retry %v; want 3, 3, none", v.Restarts, v.Attempts, v.NextRetry)
	}
}

// A place found leaking in a later listing is still one place, and the
// order they were found in is kept (the runtime's listings and check's).
func TestMergeLeaks(t *testing.T) {
	got := MergeLeaks([]string{"tool a description", "prompt p description"}, "prompt p description", "tool b title", "tool b title")
	want := []string{"tool a description", "prompt p description", "tool b title"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MergeLeaks = %q, want %q", got, want)
	}
}
