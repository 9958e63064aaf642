package ui

import (
	"encoding/json"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// withOnlyTool is the ready fixture with everything's tools replaced by
// one whose input schema is raw, so it is the first tool listed.
func withOnlyTool(name string, raw json.RawMessage) *runtime.Snapshot {
	s := uitest.ReadySnapshot()
	tool := runtime.Tool{Name: "everything__" + name, Server: "everything", ServerTool: name,
		Description: "A FastMCP tool whose arguments are a Pydantic model.", InputSchema: raw}
	for i := range s.Servers {
		if s.Servers[i].Name == "everything" {
			s.Servers[i].Tools = []runtime.Tool{tool}
		}
	}
	tools := []runtime.Tool{tool}
	for _, t := range s.Tools {
		if t.Server != "everything" {
			tools = append(tools, t)
		}
	}
	s.Tools = tools
	return s
}

// The Pydantic model as the call form draws it: the nested model a
// sub-form, the Optional enum (a $ref) a chooser, defaults filled in.
func TestGoldenPydanticForm(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(withOnlyTool("main_model", realSchema(t, "pydantic-main-model.json"))), w, h)
		hs.keys("j", "2", "tab", "enter")
		hs.waitText("Call everything › main_model", "foo_bar")
		hs.keys("3", "down", "down", "right", "right")
		v := hs.waitText("‹ female ›")
		golden.RequireEqual(t, []byte(v))
	})
}

// A discriminated union in a list: each item a selector over the chosen
// model's fields, its tag shown, not edited.
func TestGoldenUnionForm(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(withOnlyTool("pets", realSchema(t, "pydantic-discriminated-list.json"))), w, h)
		hs.keys("j", "2", "tab", "enter")
		hs.waitText("Call everything › pets", "pet")
		hs.keys("+", "right")
		v := hs.waitText("‹ Dog ›", "barks")
		golden.RequireEqual(t, []byte(v))
	})
}
