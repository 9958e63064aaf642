package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"mcpdeck/runtime/mcp"
)

// TestDeclinedAndProtocolMatchTheirSentinels: the two kinds the faces
// could not match by sentinel before: an ErrorInfo of KindDeclined did not
// match ErrDeclined, and an error wrapping ErrProtocol (a malformed list
// page, a result that cannot be decoded) was of no kind at all.
func TestDeclinedAndProtocolMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	if !errors.Is(&ErrorInfo{Kind: KindDeclined}, ErrDeclined) {
		t.Error("errors.Is(&ErrorInfo{Kind: KindDeclined}, ErrDeclined) is false")
	}
	if k := KindOf(fmt.Errorf("tools/list: decoding the result: %w: %w", ErrProtocol, errors.New("unexpected end of JSON input"))); k != KindProtocol {
		t.Errorf("an error wrapping ErrProtocol is of kind %s", k)
	}
}

// TestErrorKindTable walks the table of error kinds: every kind has one
// row and a name of its own; an *ErrorInfo of the kind matches its
// sentinels, KindOf maps each of them (and each error the row names)
// back to the kind, and the name survives a JSON round trip.
func TestErrorKindTable(t *testing.T) {
	t.Parallel()
	names, sentinels := map[string]ErrorKind{}, map[error]ErrorKind{}
	for _, r := range ErrorKinds() {
		if r.Kind.String() != r.Name || r.Name == "" {
			t.Errorf("kind %d is named %q, String says %q", r.Kind, r.Name, r.Kind.String())
		}
		if other, dup := names[r.Name]; dup {
			t.Errorf("kinds %d and %d are both named %q", other, r.Kind, r.Name)
		}
		names[r.Name] = r.Kind
		var back ErrorKind
		if b, _ := r.Kind.MarshalText(); back.UnmarshalText(b) != nil || back != r.Kind {
			t.Errorf("%s reads back as %s", r.Name, back)
		}
		if r.Kind == KindUnknown {
			if r.Sentinel != nil {
				t.Errorf("unknown has a sentinel")
			}
			continue
		}
		if r.Sentinel == nil {
			t.Errorf("%s has no sentinel: errors.Is cannot match it", r.Name)
			continue
		}
		if other, dup := sentinels[r.Sentinel]; dup {
			t.Errorf("%s and %s share the sentinel %v", other, r.Kind, r.Sentinel)
		}
		sentinels[r.Sentinel] = r.Kind
		info := &ErrorInfo{Kind: r.Kind, Message: "x"}
		for _, s := range append([]error{r.Sentinel}, r.Also...) {
			if !errors.Is(info, s) {
				t.Errorf("an ErrorInfo of kind %s does not match %v", r.Name, s)
			}
			if !errors.Is(&CallError{Info: *info, Err: errors.New("x")}, s) {
				t.Errorf("a CallError of kind %s does not match %v", r.Name, s)
			}
		}
		for _, e := range append([]error{r.Sentinel}, r.Matches...) {
			if k := KindOf(fmt.Errorf("doing something: %w", e)); k != r.Kind {
				t.Errorf("KindOf(an error wrapping %q) = %s, want %s", e, k, r.Name)
			}
		}
		if k := KindOf(fmt.Errorf("server %q is failed: %w", "s", info)); k != r.Kind {
			t.Errorf("KindOf(a wrapped ErrorInfo of kind %s) = %s", r.Name, k)
		}
	}
	if len(names) != int(numErrorKinds) {
		t.Errorf("the table has %d kinds, the constants %d", len(names), numErrorKinds)
	}
	if k := KindOf(errors.New("something else")); k != KindUnknown {
		t.Errorf("an unclassified error is %s", k)
	}
}

// TestEventKindTable walks the table of event kinds: each row names a
// runtime event type once, with a name and a short alias, and an event of
// the type finds its row.
func TestEventKindTable(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, k := range EventKinds() {
		if k.Name == "" || k.Alias == "" || names[k.Name] {
			t.Errorf("kind %+v: a name and an alias are needed, and the name only once", k)
		}
		names[k.Name] = true
		if k.Alias != strings.ToLower(k.Alias) || strings.ContainsAny(k.Alias, " -") {
			t.Errorf("alias %q of %s: lower case words joined by _, as watch prints them", k.Alias, k.Name)
		}
		e, ok := reflect.New(k.Type).Elem().Interface().(Event)
		if !ok {
			t.Errorf("%s's type %s is not an Event", k.Name, k.Type)
			continue
		}
		if got, ok := EventKindOf(e); !ok || got.Name != k.Name {
			t.Errorf("EventKindOf(%T) = %+v, %v", e, got, ok)
		}
	}
}

// TestMethodOf: each notification event names the notification it came
// from, spelled as the vocabulary spells it; requests and frames their
// method; other events none.
func TestMethodOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{LogMessage{Level: "info"}, mcp.NotificationMessage},
		{Progress{Token: "t"}, mcp.NotificationProgress},
		{ListChanged{Kind: "tools"}, mcp.NotificationToolsChanged},
		{ListChanged{Kind: "prompts"}, mcp.NotificationPromptsChanged},
		{ResourceUpdated{URI: "demo://x"}, mcp.NotificationResourceUpdated},
		{NotificationReceived{Method: "notifications/custom"}, "notifications/custom"},
		{RequestStarted{Method: "tools/call"}, "tools/call"},
		{RequestCancelled{Method: "tools/call"}, "tools/call"},
		{StateChanged{}, ""},
		{StderrLine{Line: "x"}, ""},
	} {
		if got := MethodOf(c.ev); got != c.want {
			t.Errorf("MethodOf(%T) = %q, want %q", c.ev, got, c.want)
		}
	}
}
