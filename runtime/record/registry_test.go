package record

import (
	"reflect"
	"slices"
	"testing"

	"mcpdeck/runtime"
)

// TestRegistryRecordsEveryRuntimeKind walks the runtime's table of event
// kinds: each is registered under its name, and an event of the kind is
// written under that name and read back as the same type. (Before the
// table, a test parsed package runtime's source to find its events.)
func TestRegistryRecordsEveryRuntimeKind(t *testing.T) {
	t.Parallel()
	for _, k := range runtime.EventKinds() {
		if registry().byName[k.Name] != k.Type {
			t.Errorf("kind %s is registered as %v, not %s", k.Name, registry().byName[k.Name], k.Type)
		}
		e := reflect.New(k.Type).Elem().Interface().(runtime.Event)
		if name, ok := registry().nameOf(e); !ok || name != k.Name {
			t.Errorf("an event of type %s is written as %q", k.Type, name)
		}
		line, err := encodeEvent(nil, e)
		if err != nil {
			t.Errorf("encoding a %s: %v", k.Name, err)
			continue
		}
		back, err := decodeEvent(k.Name, line)
		if err != nil || reflect.TypeOf(back) != k.Type {
			t.Errorf("a %s reads back as %T (%v)", k.Name, back, err)
		}
		if got := registry().expand(k.Alias); !slices.Contains(got, k.Name) {
			t.Errorf("the filter word %q does not select %s (it selects %v)", k.Alias, k.Name, got)
		}
	}
}

func TestKindsAreStableNames(t *testing.T) {
	t.Parallel()
	// Kinds are written to files: renaming one breaks every old recording.
	want := []string{"StateChanged", "Published", "NotificationReceived", "LogMessage", "Progress", "ListChanged",
		"ResourceUpdated", "RequestStarted", "RequestFinished", "RequestCancelled", "StderrLine", "StdoutNoise",
		"TrafficFrame", "ProtocolAnomaly", "Gap", "Live", "ReloadPlanned"}
	have := map[string]bool{}
	for _, k := range Kinds() {
		have[k] = true
	}
	for _, k := range want {
		if !have[k] {
			t.Errorf("kind %q is gone from the registry: old recordings hold it", k)
		}
	}
}

func TestNameOfShortcutsAgreeWithTheRegistry(t *testing.T) {
	t.Parallel()
	for _, e := range samples() {
		name, ok := registry().nameOf(e)
		if want := registry().byType[reflect.TypeOf(e)]; !ok || name != want {
			t.Errorf("nameOf(%T) = %q, registry says %q", e, name, want)
		}
	}
}
