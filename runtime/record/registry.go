package record

import (
	"reflect"

	"mcpdeck/runtime"
)

// registry names every event type a recording holds. The name is written
// as the line's "kind" and must never change once released: a reader maps
// it back to the type. Adding an event type to package runtime means one
// line here; TestRegistryCoversRuntimeEvents fails until it is added.
var registry = newRegistry(
	kind[runtime.StateChanged]("StateChanged"),
	kind[runtime.Published]("Published"),
	kind[runtime.NotificationReceived]("NotificationReceived"),
	kind[runtime.LogMessage]("LogMessage"),
	kind[runtime.Progress]("Progress"),
	kind[runtime.ListChanged]("ListChanged"),
	kind[runtime.ResourceUpdated]("ResourceUpdated"),
	kind[runtime.RequestStarted]("RequestStarted"),
	kind[runtime.RequestFinished]("RequestFinished"),
	kind[runtime.RequestCancelled]("RequestCancelled"),
	kind[runtime.StderrLine]("StderrLine"),
	kind[runtime.StdoutNoise]("StdoutNoise"),
	kind[runtime.TrafficFrame]("TrafficFrame"),
	kind[runtime.ProtocolAnomaly]("ProtocolAnomaly"),
	kind[runtime.HTTPExchange]("HTTPExchange"),
	kind[runtime.HealthChecked]("HealthChecked"),
	kind[runtime.RuntimeFault]("RuntimeFault"),
	kind[runtime.LogLevelSet]("LogLevelSet"),
	kind[runtime.SubscriptionChanged]("SubscriptionChanged"),
	kind[runtime.RootsChanged]("RootsChanged"),
	kind[runtime.TaskUpdated]("TaskUpdated"),
	kind[runtime.ListenChanged]("ListenChanged"),
	// This package's own kinds.
	kind[Gap]("Gap"),
	kind[Live]("Live"),
	kind[ReloadPlanned]("ReloadPlanned"),
)

// kindEntry is one registered type.
type kindEntry struct {
	name string
	typ  reflect.Type
}

func kind[E runtime.Event](name string) kindEntry {
	return kindEntry{name: name, typ: reflect.TypeFor[E]()}
}

// kinds maps names to types and back.
type kinds struct {
	byName map[string]reflect.Type
	byType map[reflect.Type]string
	order  []string
}

func newRegistry(entries ...kindEntry) *kinds {
	k := &kinds{byName: map[string]reflect.Type{}, byType: map[reflect.Type]string{}}
	for _, e := range entries {
		if _, dup := k.byName[e.name]; dup {
			panic("record: kind " + e.name + " registered twice")
		}
		if _, dup := k.byType[e.typ]; dup {
			panic("record: type " + e.typ.String() + " registered twice")
		}
		k.byName[e.name], k.byType[e.typ] = e.typ, e.name
		k.order = append(k.order, e.name)
	}
	return k
}

// nameOf returns the kind of e; an unregistered type is still written,
// under its Go type name, and read back as Unknown.
func (k *kinds) nameOf(e runtime.Event) (string, bool) {
	switch e.(type) { // the kinds of a flood, without reflection
	case runtime.TrafficFrame:
		return "TrafficFrame", true
	case runtime.LogMessage:
		return "LogMessage", true
	case runtime.Progress:
		return "Progress", true
	case runtime.NotificationReceived:
		return "NotificationReceived", true
	}
	t := reflect.TypeOf(e)
	if n, ok := k.byType[t]; ok {
		return n, true
	}
	return t.Name(), false
}

// Kinds returns every kind name a recording of this version can hold, in
// registry order (for --kind help and validation).
func Kinds() []string { return append([]string(nil), registry.order...) }
