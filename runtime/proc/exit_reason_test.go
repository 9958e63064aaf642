//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A crash's reason quotes the line that says what went wrong, not the last
// line of a stack trace: a Go panic ends with a goroutine's frames, and
// Node ends an uncaught exception with "Node.js v…".
func TestExitReasonQuotesTheCrashNotItsTrace(t *testing.T) {
	t.Run("go panic", func(t *testing.T) {
		p := start(t, "panic", nil)
		readAll(t, p.Stdout())
		waitDone(t, p)
		ee := exitErr(t, p.Exit())
		if got, want := ee.Error(), "exited with status 2; stderr: panic: assignment to entry in nil map"; got != want {
			t.Errorf("Error() = %q, want %q (stderr tail %q)", got, want, ee.StderrTail)
		}
	})
	t.Run("node uncaught exception", func(t *testing.T) {
		node, err := exec.LookPath("node")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("node is not on PATH")
			}
			t.Skip("node is not on PATH")
		}
		p, err := Start(Spec{Path: node, Args: []string{"-e", "console.error('starting'); setTimeout(() => { const notes = null; notes.get('k'); })"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop() })
		readAll(t, p.Stdout())
		waitDone(t, p)
		ee := exitErr(t, p.Exit())
		if got, want := ee.Error(), "exited with status 1; stderr: TypeError: Cannot read properties of null (reading 'get')"; got != want {
			t.Errorf("Error() = %q, want %q (stderr tail %q)", got, want, ee.StderrTail)
		}
		if last := ee.StderrTail[len(ee.StderrTail)-1]; !strings.HasPrefix(last, "Node.js v") {
			t.Errorf("the tail ends %q, not with Node's version line this test is about", last)
		}
	})
}
