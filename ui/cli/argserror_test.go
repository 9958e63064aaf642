package cli

import (
	"strings"
	"testing"
)

// Arguments a tool's schema refuses: the command line printed what was
// wrong but nothing to start from, while the TUI's raw editor and the tool
// detail start from the schema's skeleton (found by qa3). The error ends
// with that skeleton, for server-everything's own schema (zod's output).
func TestCallRefusedArgumentsShowASkeleton(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	r := h.run(t, "", "call", "everything", "get-sum", `{"a":"x"}`)
	wantCode(t, r, ExitUsage)
	for _, want := range []string{"/a: got string, want number", "send anyway with --no-validate)\n",
		`  arguments the schema describes, to start from: {"a":0,"b":0}` + "\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
