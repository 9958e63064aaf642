package ui

import (
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// The Tools tab marks a tool whose input schema is not valid JSON Schema,
// and its detail and call form list what is wrong, one violation a line,
// path first (runtime.Tool.InputSchemaError, the compile the call path
// does).
func TestToolsTabMarksAnInvalidInputSchema(t *testing.T) {
	t.Parallel()
	srv := fakeProcess("s", jsonrpctest.InvalidSchema, config.Reconnect{})
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.keys("2", "tab")
	hs.waitText("bad_type [invalid schema]", "echo ")
	v, _ := rt.Snapshot().Server("s")
	tool, ok := runtime.LookupTool(v.Tools, "bad_type")
	if !ok {
		t.Fatalf("the fake has no bad_type tool")
	}
	hs.tm.Send(openDetailMsg{tool: *tool})
	hs.waitText("input schema is not valid JSON Schema", "/properties/x/type: value must be one of")
	// The call form lists the problems as the detail does, a line each.
	hs.keys("esc", "/", "b", "a", "d", "_", "enter")
	hs.waitText("1 of 9 tools", "› bad_type [invalid schema]")
	hs.keys("enter")
	hs.waitText("Call s › bad_type", "✗ the schema is invalid, arguments are not checked: /properties/x/type: value must be one of",
		"✗ /properties/x/type: got string, want array", "2 problems")
}
