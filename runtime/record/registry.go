package record

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"mcpdeck/runtime"
)

// registry names every event type a recording holds: the runtime's table
// of event kinds (runtime.EventKinds), and this package's own. The name is
// written as the line's "kind" and a reader maps it back to the type; the
// alias is what filters take (replay --kind, as watch prints kinds). Built
// on first use, not in package init, which every mcpdeck start runs.
var registry = sync.OnceValue(func() *kinds {
	return newRegistry(append(runtimeKinds(),
		kind[Gap]("Gap", "gap"),
		kind[Live]("Live", "live"),
	)...)
})

// kindSynonyms are further words filters take for an alias.
var kindSynonyms = map[string]string{"traffic": "frame"}

// kindEntry is one registered type.
type kindEntry struct {
	name, alias string
	typ         reflect.Type
}

func kind[E runtime.Event](name, alias string) kindEntry {
	return kindEntry{name: name, alias: alias, typ: reflect.TypeFor[E]()}
}

func runtimeKinds() []kindEntry {
	var entries []kindEntry
	for _, k := range runtime.EventKinds() {
		entries = append(entries, kindEntry{name: k.Name, alias: k.Alias, typ: k.Type})
	}
	return entries
}

// kinds maps names to types and back, and aliases to names.
type kinds struct {
	byName  map[string]reflect.Type
	byType  map[reflect.Type]string
	aliases map[string][]string // alias → the names that read as it, in order
	order   []string
	words   []string // the aliases, in order of first use
}

func newRegistry(entries ...kindEntry) *kinds {
	k := &kinds{byName: map[string]reflect.Type{}, byType: map[reflect.Type]string{}, aliases: map[string][]string{}}
	for _, e := range entries {
		if _, dup := k.byName[e.name]; dup {
			panic("record: kind " + e.name + " registered twice")
		}
		if _, dup := k.byType[e.typ]; dup {
			panic("record: type " + e.typ.String() + " registered twice")
		}
		k.byName[e.name], k.byType[e.typ] = e.typ, e.name
		k.order = append(k.order, e.name)
		if _, seen := k.aliases[e.alias]; !seen {
			k.words = append(k.words, e.alias)
		}
		k.aliases[e.alias] = append(k.aliases[e.alias], e.name)
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
func Kinds() []string { return append([]string(nil), registry().order...) }

// KindAliases returns the short words filters take for kinds, in registry
// order, synonyms last.
func KindAliases() []string {
	return append(append([]string(nil), registry().words...), slices.Sorted(maps.Keys(kindSynonyms))...)
}

// expand returns the kind names a filter word stands for: an alias or a
// synonym of one (any case), or a name; none for an unknown word.
func (k *kinds) expand(word string) []string {
	w := strings.ToLower(word)
	if syn, ok := kindSynonyms[w]; ok {
		w = syn
	}
	if names, ok := k.aliases[w]; ok {
		return names
	}
	for _, name := range k.order {
		if strings.EqualFold(name, word) {
			return []string{name}
		}
	}
	return nil
}
