package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
)

// envCopy makes the test binary copy its value with the terminal's
// clipboard and exit.
const envCopy = "MCPDECK_UI_TEST_COPY"

// TestCopyInsideTmux copies inside a real tmux with its default settings
// (set-clipboard external, allow-passthrough off) and reads tmux's buffer
// back. The copy used to be an OSC 52 sequence in tmux's DCS passthrough
// wrapper, which tmux drops unless allow-passthrough is on: y said
// "copied" and nothing was.
func TestCopyInsideTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed; .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed: the copy inside tmux cannot be checked here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tmux := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := tmux("new-session", "-d", "-s", "copy", "-x", "80", "-y", "20", "sleep 600"); err != nil {
		t.Fatalf("starting tmux: %v: %s", err, out)
	}
	// Not through tmux(): its ctx is cancelled when the test function
	// returns, before cleanups run, and the server (with its sleep 600)
	// outlived every run.
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "-f", "/dev/null", "kill-server").Run() })
	if v, _ := tmux("show-options", "-gv", "set-clipboard"); v != "external" {
		t.Fatalf("tmux's set-clipboard is %q, want its default, external", v)
	}
	const text = "copied from mcpdeck ✓ 'quoted' $HOME"
	run := envCopy + "=" + config.ShellQuote(text) + " " + config.ShellQuote(exe) + " -test.run='^$' >/dev/null 2>" + config.ShellQuote(filepath.Join(t.TempDir(), "stderr")) +
		"; tmux wait-for -S copied"
	if out, err := tmux("new-window", "-d", run); err != nil {
		t.Fatalf("running the copy: %v: %s", err, out)
	}
	if out, err := tmux("wait-for", "copied"); err != nil {
		t.Fatalf("waiting for the copy: %v: %s", err, out)
	}
	got, err := tmux("show-buffer")
	if err != nil || got != text {
		t.Fatalf("tmux's buffer after the copy: %q (%v), want %q", got, err, text)
	}
}
