package cli

import (
	"bytes"
	"strings"
	"testing"
)

// --version says what `mcpdeck version` says, as most command lines do,
// rather than "unknown flag" (exit 2).
func TestVersionFlag(t *testing.T) {
	var want bytes.Buffer
	if code := run([]string{"version"}, strings.NewReader(""), &want, &bytes.Buffer{}); code != ExitOK {
		t.Fatalf("version exited %d", code)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &out, &errb); code != ExitOK || out.String() != want.String() {
		t.Errorf("--version: exit %d, printed %q (stderr %q); want %q", code, out.String(), errb.String(), want.String())
	}
}
