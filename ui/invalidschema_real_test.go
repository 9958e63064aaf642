package ui

import (
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// The Tools tab marks a tool whose input schema is not valid JSON Schema,
// and its detail lists what is wrong, one violation a line, path first
// (runtime.Tool.InputSchemaError, the compile the call path does).
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
}
