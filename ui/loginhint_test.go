package ui

import (
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// The TUI's hint for a server that needs a login names the login key of
// the keymap; it used to say "press L", which sets the log level.
func TestLoginHintNamesTheLoginKey(t *testing.T) {
	t.Parallel()
	k := keys.DefaultKeyMap()
	hint := present.Hint(&runtime.ErrorInfo{Kind: runtime.KindNeedsLogin, Server: "docs"}, present.TUI)
	if want := "press " + k.Login.Help().Key + " "; !strings.Contains(hint, want) {
		t.Fatalf("hint %q does not name the login key (%q)", hint, want)
	}
	if strings.Contains(hint, "press "+k.LogLevel.Help().Key+" ") {
		t.Fatalf("hint %q names the log-level key", hint)
	}
}
