package cli

import (
	"strings"
	"testing"
)

// complete against server-everything with what a person mistypes: an
// argument the prompt or template does not have printed nothing and
// exited 0 (as "no completions"), and a template the server does not
// list exited 3 with advice about tools' schemas (found by qa3). Each is
// a usage error naming what there is; the right ARG still completes.
func TestCompleteRefusesWhatTheServerDoesNotHave(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	const tmpl = "demo://resource/dynamic/text/{resourceId}"
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{[]string{"--prompt", "completable-prompt", "departmnt", "E"}, ExitUsage, "",
			[]string{`prompt "completable-prompt" on server "everything" has no argument "departmnt"`, "did you mean department?", "its arguments: department, name"}},
		{[]string{"--prompt", "simple-prompt", "x", ""}, ExitUsage, "", []string{`"simple-prompt" on server "everything" takes no arguments`}},
		{[]string{"--resource", tmpl, "id", "1"}, ExitUsage, "", []string{`no argument "id"`, "its arguments: resourceId"}},
		{[]string{"--resource", "demo://nope/{x}", "x", "1"}, ExitUsage, "",
			[]string{`no resource template "demo://nope/{x}" on server "everything"`, "mcpdeck resources everything --templates"}},
		{[]string{"--prompt", "nope", "x", "y"}, ExitUsage, "", []string{`no prompt "nope" on server "everything"`}},
		{[]string{"--prompt", "completable-prompt", "department", "E"}, ExitOK, "Engineering\n", nil},
		{[]string{"--resource", tmpl, "resourceId", "1"}, ExitOK, "1\n", nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel() // each is its own run of the binary and server
			r := h.run(t, "", append([]string{"complete", "everything"}, tc.args...)...)
			wantCode(t, r, tc.code)
			if r.stdout != tc.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, tc.stdout)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}
