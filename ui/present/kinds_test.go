package present

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

// TestEveryErrorKindIsWorded walks the runtime's table of error kinds: each
// kind has an entry in hints (nil only by decision), a worded kind has a
// hint for the command line and one for the TUI (a face without words
// for a kind another face words leaves its person without the remedy),
// and an error wrapping the kind's sentinel is given a hint. A kind added to the runtime fails here until it is
// worded, or declared wordless, in hints.
func TestEveryErrorKindIsWorded(t *testing.T) {
	kinds := map[runtime.ErrorKind]bool{}
	for _, r := range runtime.ErrorKinds() {
		kinds[r.Kind] = true
		h, ok := hints[r.Kind]
		if !ok {
			t.Errorf("error kind %s has no entry in hints: word it, or give it nil", r.Name)
			continue
		}
		if h == nil {
			continue
		}
		info := &runtime.ErrorInfo{Kind: r.Kind, Server: "s", Method: "tools/call", Message: "m"}
		cli := Hint(info, CLI)
		if cli == "" {
			t.Errorf("error kind %s has words in hints but none for the command line", r.Name)
			continue
		}
		if Hint(info, TUI) == "" {
			t.Errorf("error kind %s has words in hints for the command line but none for the TUI", r.Name)
		}
		if r.Sentinel != nil {
			err := fmt.Errorf("doing it: %w", r.Sentinel)
			if got := ErrorText(err, CLI); !strings.HasPrefix(got, err.Error()+" (") {
				t.Errorf("an error wrapping %v reads %q, without its kind's hint", r.Sentinel, got)
			}
		}
	}
	for k := range hints {
		if !kinds[k] {
			t.Errorf("hints words %s, which is not in the runtime's table", k)
		}
	}
}

// TestEveryEventKindIsWorded walks the runtime's table of event kinds:
// each has an entry in eventWords (nil: not a stream line, by decision),
// and a worded kind's line carries the kind's alias.
func TestEveryEventKindIsWorded(t *testing.T) {
	names := map[string]bool{}
	for _, k := range runtime.EventKinds() {
		names[k.Name] = true
		w, ok := eventWords[k.Name]
		if !ok {
			t.Errorf("event kind %s has no entry in eventWords: word it, or give it nil", k.Name)
			continue
		}
		e := sampleEvent(k)
		l, shown := Describe(e)
		switch {
		case w == nil && shown:
			t.Errorf("%s has no words but Describe shows it", k.Name)
		case w != nil && !shown:
			t.Errorf("%s has words but Describe shows nothing for %+v", k.Name, e)
		case shown && l.Kind != k.Alias:
			t.Errorf("a %s line is of kind %q, want its alias %q", k.Name, l.Kind, k.Alias)
		}
	}
	for name := range eventWords {
		if !names[name] {
			t.Errorf("eventWords words %q, which is not in the runtime's table", name)
		}
	}
}

// sampleEvent is an event of kind k, filled in where an empty one would
// not be a line (a listen change without its stream's state).
func sampleEvent(k runtime.EventKind) runtime.Event {
	if k.Name == "ListenChanged" {
		return runtime.ListenChanged{Listen: &runtime.ListenInfo{State: runtime.ListenOpen}}
	}
	return reflect.New(k.Type).Elem().Interface().(runtime.Event)
}
