package present

import (
	"strings"
	"testing"

	"mcpdeck/runtime"
)

// Every state reads as English after a server's name: no "is needs
// login", no "is failed".
func TestStateSentence(t *testing.T) {
	want := map[runtime.State]string{
		runtime.StateFailed: "has failed", runtime.StateNeedsLogin: "needs a login", runtime.StateReady: "is ready",
		runtime.StateStarting: "is starting", runtime.StateInvalid: "has an invalid configuration",
	}
	for s := runtime.StateDisabled; s <= runtime.StateInvalid; s++ {
		got := StateSentence(s)
		if w, ok := want[s]; ok && got != w {
			t.Errorf("%s: %q, want %q", s, got, w)
		}
		for _, bad := range []string{"is needs", "is failed", "is stopped", "is invalid", "is disabled"} {
			if strings.HasPrefix(got, bad) {
				t.Errorf("%s reads %q", s, got)
			}
		}
	}
}
