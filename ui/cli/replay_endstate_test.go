package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/ui"
)

// TestReplayOfCallEndsAsTheCallDid records two `mcpdeck call`s against
// the demo server, in a configuration that also has a broken server, and
// opens each recording as `mcpdeck replay` does. The recording reads
// (the broken server is in its header, invalid with its problem), and at
// its end the replay shows what the command did: the server stopped, the
// log level and root the command line gave in force, and the call in the
// Requests tab's history with its arguments and outcome.
func TestReplayOfCallEndsAsTheCallDid(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":   srvDemo(t, "0"),
		"broken": {"env": map[string]string{"A": "b"}},
	})
	root := t.TempDir()
	ok := filepath.Join(h.dir, "ok.jsonl")
	r := h.run(t, "", "call", "demo", "echo", `{"text":"from the command line"}`, "--record", ok, "--log-level", "notice", "--root", root)
	wantCode(t, r, ExitOK)
	failed := filepath.Join(h.dir, "fail.jsonl")
	r = h.run(t, "", "call", "demo", "fail", "--record", failed)
	wantCode(t, r, ExitToolError)

	for _, c := range []struct {
		file   string
		status runtime.CallStatus
		text   string
	}{
		{ok, runtime.CallOK, "from the command line"},
		{failed, runtime.CallToolError, "the fail tool always fails"},
	} {
		r := h.run(t, "", "replay", c.file, "--text")
		wantCode(t, r, ExitOK)
		rec, err := record.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rec.Header.Servers {
			if s.Name == "broken" && (s.Invalid == nil || !strings.Contains(s.Invalid.Error(), `neither "command" nor "url" is set`)) {
				t.Errorf("%s: the broken server reads back as %v", c.file, s.Invalid)
			}
		}
		rp := ui.NewReplay(rec)
		srv, _ := rp.Snapshot().Server("demo")
		if srv.State != runtime.StateStopped {
			t.Errorf("%s ends with demo %s, want stopped", c.file, srv.State)
		}
		calls, _ := rp.History()
		if len(calls) != 1 {
			t.Fatalf("%s: the replay's history has %d calls, want the one made", c.file, len(calls))
		}
		call := calls[0]
		if call.Server != "demo" || call.Status != c.status || call.Result == nil || len(call.Result.Content) == 0 ||
			!strings.Contains(call.Result.Content[0].Text, c.text) || call.Result.IsError != (c.status == runtime.CallToolError) {
			t.Errorf("%s: the call replays as %+v, result %+v", c.file, call, call.Result)
		}
		if c.file == ok {
			// A recorded call lists the whole server, for replay --serve
			// to answer from; without --record a call lists its tools alone.
			if data, err := os.ReadFile(c.file); err != nil || !strings.Contains(string(data), `"method":"prompts/list"`) {
				t.Errorf("the recording of a call has no prompts/list (%v)", err)
			}
			if string(call.Arguments) != `{"text":"from the command line"}` {
				t.Errorf("the call's arguments replay as %s", call.Arguments)
			}
			if srv.LogLevel != "notice" || len(srv.Roots) != 1 || !strings.HasSuffix(srv.Roots[0].URI, filepath.ToSlash(root)) {
				t.Errorf("the level and roots in force replay as %q, %+v", srv.LogLevel, srv.Roots)
			}
		}
	}
	assertReaped(t, h.mark)
}
