package keys

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// same reports whether a and b are the same binding: the same keys and
// the same help.
func same(a, b key.Binding) bool {
	return reflect.DeepEqual(a.Keys(), b.Keys()) && a.Help() == b.Help()
}

// The ? help lists every binding of the map exactly once, and within a
// section no key twice: bindings of one place that share a key (enter
// opens, and applies a filter being typed) are one entry saying both.
func TestEveryBindingOnceInTheHelp(t *testing.T) {
	km := DefaultKeyMap()
	layout := km.helpLayout()
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		var in []string
		for _, s := range layout {
			for _, e := range s.entries {
				for _, p := range e.parts {
					if same(p, b) {
						in = append(in, s.title)
					}
				}
			}
		}
		if len(in) != 1 {
			t.Errorf("%s (%s %s) is in the help %d times: %v", v.Type().Field(i).Name, b.Help().Key, b.Help().Desc, len(in), in)
		}
	}
	for _, s := range km.HelpSections() {
		seen := map[string]string{}
		for _, e := range s.Bindings {
			for _, k := range e.Keys() {
				if prev, dup := seen[k]; dup {
					t.Errorf("%s lists %q twice: for %q and %q", s.Title, k, prev, e.Help().Desc)
				}
				seen[k] = e.Help().Desc
			}
		}
	}
}

// A merged entry answers every key of its parts and shows their labels.
func TestMergedEntry(t *testing.T) {
	km := DefaultKeyMap()
	b := merge("quit (ctrl+c twice: force)", km.Quit, km.ForceQuit).binding()
	if b.Help().Key != "q/ctrl+c" || !reflect.DeepEqual(b.Keys(), []string{"q", "ctrl+c"}) {
		t.Errorf("merged quit: label %q, keys %v", b.Help().Key, b.Keys())
	}
}
