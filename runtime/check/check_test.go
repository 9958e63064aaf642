package check

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/proc"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	goleak.VerifyTestMain(m)
}

// testOptions keep each check short: a call that gets no matched response
// is given up on after 2 s, and a stop step's grace is 1 s.
var testOptions = Options{CallTimeout: 2 * time.Second, StopGrace: time.Second}

// fake is a configured stdio server running a fake in mode.
func fake(mode jsonrpctest.Mode, opts ...jsonrpctest.Option) config.Server {
	path, args, _ := jsonrpctest.Command(mode, opts...)
	return config.Server{
		Name: "fake-" + string(mode), Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(mode, opts...), Enabled: true,
	}
}

func runCheck(t *testing.T, srv config.Server, opts Options) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var streamed []Item
	rep := Run(ctx, srv, opts, func(it Item) { streamed = append(streamed, it) })
	var ids []string
	for _, it := range rep.Items {
		ids = append(ids, it.ID)
	}
	want := IDs()
	if rep.Era == "modern" {
		want = append(want, ModernIDs()...)
	}
	if _, apps := rep.Item(IDAppResources); apps { // a server with MCP Apps: all four, last
		want = append(want, AppIDs()...)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("item ids = %v, want %v", ids, want)
	}
	if !slices.EqualFunc(streamed, rep.Items, func(a, b Item) bool { return a.ID == b.ID && a.Status == b.Status }) {
		t.Errorf("progress saw %d items, not the report's %d in order", len(streamed), len(rep.Items))
	}
	for _, it := range rep.Items {
		if strings.TrimSpace(it.Reason) == "" {
			t.Errorf("item %s (%s) has no reason", it.ID, it.Status)
		}
	}
	if t.Failed() || testing.Verbose() {
		logReport(t, rep)
	}
	return rep
}

func logReport(t *testing.T, rep Report) {
	t.Helper()
	for _, it := range rep.Items {
		t.Logf("%-4s %-28s %s", it.Status, it.ID, it.Reason)
	}
}

func TestNormalServerPassesEverything(t *testing.T) {
	rep := runCheck(t, fake(jsonrpctest.Normal), testOptions)
	for _, it := range rep.Items {
		if it.ID == IDAuthorization { // HTTP only: a stdio server skips it
			if it.Status != Skip {
				t.Errorf("%s = %s (%s), want SKIP on stdio", it.ID, it.Status, it.Reason)
			}
			continue
		}
		if it.Status != Pass {
			t.Errorf("%s = %s (%s), want PASS", it.ID, it.Status, it.Reason)
		}
	}
	if rep.Failed() {
		t.Error("Failed() = true for a clean report")
	}
	if it, _ := rep.Item(IDToolsList); !strings.Contains(it.Reason, "7 tools over 2 pages") {
		t.Errorf("tools-list reason %q does not count both pages", it.Reason)
	}
	if it, _ := rep.Item(IDCancellation); !strings.Contains(it.Reason, "slow") {
		t.Errorf("cancellation reason %q: want the slow tool cancelled mid-flight", it.Reason)
	}
	noChildren(t)
}

// TestMisbehavioursFailTheRightItem runs each misbehaving fake and checks
// that the item naming its defect fails, with a reason that says so.
func TestMisbehavioursFailTheRightItem(t *testing.T) {
	const secret = "s3cret-token-0451"
	cases := []struct {
		mode   jsonrpctest.Mode
		opts   []jsonrpctest.Option
		check  Options
		item   string
		status Status
		reason string // a fragment of the item's reason
	}{
		{mode: jsonrpctest.CrashOnCall, item: IDCall, status: Fail, reason: "closed the connection"},
		{mode: jsonrpctest.IgnoreTerm, item: IDShutdown, status: Fail, reason: "only SIGKILL"},
		{mode: jsonrpctest.IgnoreEOF, item: IDShutdown, status: Warn, reason: "SIGTERM stopped it"},
		{mode: jsonrpctest.SecretLeak, opts: []jsonrpctest.Option{jsonrpctest.WithSecret(secret)}, item: IDNoSecrets, status: Fail, reason: "tool echo description"},
		{mode: jsonrpctest.RenameTools, item: IDStableNames, status: Fail, reason: "tool names changed"},
		{mode: jsonrpctest.InvalidSchema, item: IDToolsList, status: Fail, reason: `"array_input"`},
		{mode: jsonrpctest.Noise, item: IDStdoutClean, status: Fail, reason: "starting up..."},
		{mode: jsonrpctest.WrongID, item: IDResponseIDs, status: Fail, reason: "matches no request"},
		{mode: jsonrpctest.NotifyInstead, item: IDNoNotification, status: Fail, reason: "notifications/message carrying its id"},
		{mode: jsonrpctest.VersionBad, item: IDInitialize, status: Fail, reason: `"1999-01-01" to a request for "2025-11-25"`},
		{mode: jsonrpctest.Oversized, opts: []jsonrpctest.Option{jsonrpctest.WithSize(600 << 10)}, check: Options{ResultMax: 512 << 10},
			item: IDBoundedResults, status: Fail, reason: "over the maximum"},
		{mode: jsonrpctest.Oversized, opts: []jsonrpctest.Option{jsonrpctest.WithSize(300 << 10)}, item: IDBoundedResults, status: Warn, reason: "crowd"},
		{mode: jsonrpctest.ExitEarly, item: IDInitialize, status: Fail, reason: "exited with status 1; last stderr line: fatal: missing API key"},
		{mode: jsonrpctest.AnswerCancelled, item: IDCancellation, status: Warn, reason: "after it was cancelled (mcpdeck dropped the answer)"},
	}
	t.Run("group", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(string(tc.mode)+"/"+tc.item, func(t *testing.T) {
				t.Parallel()
				opts := testOptions
				if tc.check.ResultMax != 0 {
					opts.ResultMax = tc.check.ResultMax
				}
				rep := runCheck(t, fake(tc.mode, tc.opts...), opts)
				it, _ := rep.Item(tc.item)
				if it.Status != tc.status || !strings.Contains(it.Reason, tc.reason) {
					t.Errorf("%s = %s %q, want %s containing %q", tc.item, it.Status, it.Reason, tc.status, tc.reason)
				}
				if tc.status == Fail && !rep.Failed() {
					t.Errorf("Failed() = %v with %s %s", rep.Failed(), tc.item, tc.status)
				}
				if strings.Contains(reportText(rep), secret) {
					t.Errorf("the report shows the secret value itself")
				}
			})
		}
	})
	noChildren(t)
}

func TestSkipsAfterInitializationFails(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.VersionBad), testOptions)
	for _, id := range []string{IDToolsList, IDCall, IDInvalidInput, IDCancellation, IDReconnect, IDShutdown, IDStableNames, IDNoSecrets} {
		if it, _ := rep.Item(id); it.Status != Skip || it.Reason != "skipped: initialization failed" {
			t.Errorf("%s = %s %q, want SKIP for the failed initialization", id, it.Status, it.Reason)
		}
	}
}

func TestNamedToolAndArguments(t *testing.T) {
	t.Parallel()
	opts := testOptions
	opts.Tool, opts.Args = "echo", json.RawMessage(`{"text":"named"}`)
	rep := runCheck(t, fake(jsonrpctest.Normal), opts)
	if it, _ := rep.Item(IDCall); it.Status != Pass || !strings.Contains(it.Reason, `echo {"text":"named"}`) {
		t.Errorf("call = %s %q, want the named call to pass", it.Status, it.Reason)
	}

	opts.Tool, opts.Args = "fail", nil
	rep = runCheck(t, fake(jsonrpctest.Normal), opts)
	if it, _ := rep.Item(IDCall); it.Status != Fail || !strings.Contains(it.Reason, "isError") {
		t.Errorf("call of fail = %s %q, want FAIL for its isError", it.Status, it.Reason)
	}

	opts.Tool = "nope"
	rep = runCheck(t, fake(jsonrpctest.Normal), opts)
	if it, _ := rep.Item(IDCall); it.Status != Fail || !strings.Contains(it.Reason, `no tool "nope"`) {
		t.Errorf("call of an unknown tool = %s %q, want FAIL naming it", it.Status, it.Reason)
	}
}

func TestCancelledRunSkipsTheRest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rep := Run(ctx, fake(jsonrpctest.Normal), testOptions, func(it Item) {
		if it.ID == IDToolsList {
			cancel()
		}
	})
	cancel()
	if it, _ := rep.Item(IDInitialize); it.Status != Pass {
		t.Errorf("initialize = %s %q, want PASS before the cancel", it.Status, it.Reason)
	}
	for _, id := range []string{IDCall, IDReconnect, IDShutdown, IDNoSecrets} {
		if it, _ := rep.Item(id); it.Status != Skip || !strings.Contains(it.Reason, "cancelled") {
			t.Errorf("%s = %s %q, want SKIP after the cancel", id, it.Status, it.Reason)
		}
	}
	noChildren(t)
}

func TestStatus(t *testing.T) {
	t.Parallel()
	for st, want := range map[Status]string{Pass: "PASS", Warn: "WARN", Fail: "FAIL", Skip: "SKIP", Status(9): "Status(9)"} {
		if got := st.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(st), got, want)
		}
	}
	b, _ := json.Marshal(struct{ S Status }{Fail})
	if string(b) != `{"S":"FAIL"}` {
		t.Errorf("JSON of a status = %s", b)
	}
	r := Report{Items: []Item{{Status: Pass}, {Status: Skip}, {Status: Warn}}}
	if r.Failed() || r.Worst() != Warn {
		t.Errorf("Failed/Worst = %v/%s, want false/WARN", r.Failed(), r.Worst())
	}
	if Name(IDNoNotification) != "No notification for a response" || Name("x") != "x" {
		t.Error("Name does not map ids to names")
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts Options
		ok   bool
	}{
		{Options{}, true},
		{Options{Tool: "echo"}, true},
		{Options{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`)}, true},
		{Options{Args: json.RawMessage(`{}`)}, false},
		{Options{Tool: "echo", Args: json.RawMessage(`[1]`)}, false},
		{Options{Tool: "echo", Args: json.RawMessage(`{bad`)}, false},
		{Options{Tool: "echo", Args: json.RawMessage(`null`)}, false},
	} {
		err := tc.opts.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidOptions)) {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}

func reportText(r Report) string {
	var b strings.Builder
	for _, it := range r.Items {
		b.WriteString(it.Reason + "\n")
	}
	return b.String()
}

// noChildren fails if a process this test binary started is still there:
// every fake server must be gone once its check returns.
func noChildren(t *testing.T) {
	t.Helper()
	me := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut after ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		pid := filepath.Base(filepath.Dir(p))
		if pid == strconv.Itoa(proc.WatchdogPid()) {
			continue // the process watchdog lives as long as this process
		}
		if len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			t.Errorf("process %s is still running after the check: %s", pid, strings.TrimSpace(s))
		}
	}
}

// A server that exits when stdin closes but leaves its child running fails
// shutdown, naming the child: mcpdeck's own group kill cleans up after it,
// but the check is there to tell the server's author. The child is gone
// once the check returns.
func TestShutdownNamesTheChildAServerLeaves(t *testing.T) {
	rep := runCheck(t, fake(jsonrpctest.Grandchild), testOptions)
	it, _ := rep.Item(IDShutdown)
	path, _, _ := jsonrpctest.Command(jsonrpctest.Sleeper)
	if it.Status != Fail || !strings.Contains(it.Reason, "left 1 process of its process group running: pid ") ||
		!strings.Contains(it.Reason, path) || !strings.Contains(it.Reason, "stop every process you start") {
		t.Errorf("shutdown = %s %q, want FAIL naming the sleeper's pid and command line, and what to fix", it.Status, it.Reason)
	}
	noChildren(t)
}
