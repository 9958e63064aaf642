package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Nothing searches PATH or starts work in an init that every mcpdeck
// start would pay for: the clipboard library bubbles pastes with looks
// for its commands on first use (go.mod replaces it with
// internal/third_party/atottoclipboard), not at start.
func TestNoClipboardSearchAtStart(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(mcpdeckBin(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "init mcpdeck/ui/cli ") {
		t.Fatalf("mcpdeck version with inittrace: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "init github.com/atotto/clipboard ") {
			t.Errorf("the clipboard library runs an init at start: %s", line)
		}
	}
}
