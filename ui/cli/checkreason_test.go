package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// pythonTraceback is what a Python MCP server built on a bare framework
// puts into a JSON-RPC error's message when its handler raises.
const pythonTraceback = `Traceback (most recent call last):
  File "/srv/app/server.py", line 88, in handle_initialize
    cfg = load_settings(os.environ["APP_SETTINGS"])
KeyError: 'APP_SETTINGS'`

// TestCheckTableShowsAMultiLineReason: a server that answers initialize
// with a multi-line error (a Python traceback, over loopback HTTP) has it
// quoted in the initialize item's reason; the table shows its lines as
// lines of the REASON column, each under the one before, instead of one
// row joined with ⏎ that runs far past the terminal's width.
func TestCheckTableShowsAMultiLineReason(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		msg, _ := json.Marshal(pythonTraceback)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32603,"message":`+string(msg)+`}}`)
	}))
	t.Cleanup(srv.Close)
	h := newHeadless(t, map[string]map[string]any{"py": {"url": srv.URL, "protocol": "legacy"}})
	r := h.run(t, "", "check", "py")
	if r.code != ExitToolError {
		t.Fatalf("check of a server that fails initialize: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "⏎") {
		t.Errorf("the reason's lines are joined with ⏎:\n%s", r.stdout)
	}
	lines := strings.Split(r.stdout, "\n")
	col := strings.Index(lines[1], "REASON")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "FAIL") && strings.Contains(l, "initialize") })
	want := []string{"initialization failed: Traceback (most recent call last):", `File "/srv/app/server.py", line 88, in handle_initialize`,
		`cfg = load_settings(os.environ["APP_SETTINGS"])`, "KeyError: 'APP_SETTINGS'"}
	if at < 0 || at+len(want) > len(lines) {
		t.Fatalf("no initialize row:\n%s", r.stdout)
	}
	for i, w := range want {
		l := lines[at+i]
		if len(l) < col || l[col:] != w || (i > 0 && strings.TrimSpace(l[:col]) != "") {
			t.Errorf("line %d of the reason is %q, want %q alone in the REASON column (from %d)\n%s", i+1, l, w, col, r.stdout)
		}
	}
}
