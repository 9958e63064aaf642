package ui

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// schemaPeer is a TypeScript SDK v2 server (peers/ts-schemas.mjs) whose
// tools take real Pydantic and FastMCP schemas as their raw inputSchema,
// and zod schemas the SDK converts itself; each answers with the
// arguments it received, after the SDK validated them.
func schemaPeer(t *testing.T, fixtures ...string) config.Server {
	node, modules, peers := jsonrpctest.Node(t)
	args := []string{filepath.Join(peers, "ts-schemas.mjs")}
	for _, f := range fixtures {
		abs, err := filepath.Abs(filepath.Join("..", "runtime", "schema", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, abs)
	}
	return config.Server{Name: "py", Transport: config.TransportStdio, Command: node, Args: args,
		Env: map[string]string{jsonrpctest.EnvNodeModules: modules}, Enabled: true,
		StartupTimeout: 30 * time.Second, CallTimeout: 20 * time.Second, PingInterval: time.Minute}
}

// received is what the server said it received in the last call of tool.
func received(t *testing.T, rt *runtime.Controller, tool string) map[string]any {
	t.Helper()
	calls, _ := rt.History()
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		if c.Tool != tool || c.Result == nil || len(c.Result.Content) == 0 {
			continue
		}
		if c.Result.IsError {
			t.Fatalf("%s answered an error: %s", tool, c.Result.Content[0].Text)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(c.Result.Content[0].Text), &got); err != nil {
			t.Fatalf("%s answered %q", tool, c.Result.Content[0].Text)
		}
		return got
	}
	t.Fatalf("no result of %s in the history", tool)
	return nil
}

func wantReceived(t *testing.T, rt *runtime.Controller, tool, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if got := received(t, rt, tool); !reflect.DeepEqual(got, w) {
		enc, _ := json.Marshal(got)
		t.Errorf("%s received %s, want %s", tool, enc, want)
	}
}

// TestPydanticFormCallsARealServer fills the forms of FastMCP/Pydantic
// and zod schemas by keys, as a person would, and calls a TypeScript SDK
// v2 server that validates the arguments against those schemas and says
// what it received.
func TestPydanticFormCallsARealServer(t *testing.T) {
	t.Parallel()
	srv := schemaPeer(t, "pydantic-main-model.json", "pydantic-discriminated-list.json")
	hs, rt := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	// open filters the Tools tab down to tool and opens its form. A call
	// leaves the focus on the tabs and the filter behind: esc clears it.
	focusTabs := "tab"
	open := func(tool string) {
		hs.keys("2", focusTabs)
		focusTabs = "esc"
		hs.waitView("the Tools tab without a filter", func(v string) bool {
			return strings.Contains(v, "[2 Tools]") && !strings.Contains(v, "filter:")
		})
		hs.keys("/")
		hs.tm.Type(tool)
		hs.keys("enter", "enter")
		hs.waitText("Call py › " + tool)
	}

	// The nested model is a sub-form (count first), the Optional size is
	// left empty (left out: its default is null), Gender (an enum behind
	// a $ref) is chosen, snap keeps its default.
	open("pydantic-main-model")
	hs.keys("3", "down", "down", "right", "right")
	hs.waitText("‹ female ›", "✓ arguments match the schema")
	hs.keys("enter")
	hs.waitText("Result of py › pydantic-main-model")
	wantReceived(t, rt, "pydantic-main-model", `{"foo_bar":{"count":3},"Gender":"female","snap":42}`)
	hs.keys("esc")

	// The discriminated union: a pet added is a Cat, → makes it a Dog;
	// its tag goes with it.
	open("pydantic-discriminated-list")
	hs.keys("+", "right")
	hs.waitText("‹ Dog ›", `= "dog"`)
	hs.keys("down")
	hs.tm.Type("1.5")
	hs.keys("down", "2")
	hs.waitText("✓ arguments match the schema")
	hs.keys("enter")
	hs.waitText("Result of py › pydantic-discriminated-list")
	wantReceived(t, rt, "pydantic-discriminated-list", `{"n":2,"pet":[{"pet_type":"dog","barks":1.5}]}`)
	hs.keys("esc")

	// zod: the SDK's own conversion. The nullable note is null when left
	// empty, the union of string and list starts as a string, the
	// discriminated union as its first shape.
	open("zod_shapes")
	hs.keys("t")
	for range 11 {
		hs.keys("tab")
	}
	hs.waitText("› target")
	hs.keys("tab", "x", "tab", "tab", "2")
	hs.waitText("✓ arguments match the schema")
	hs.keys("enter")
	hs.waitText("Result of py › zod_shapes")
	wantReceived(t, rt, "zod_shapes", `{"title":"t","note":null,"ratio":0.5,"color":"red","target":"x","shape":{"kind":"circle","radius":2}}`)

	// The zod schemas in runtime/schema/testdata are what the SDK sends.
	v, _ := rt.Snapshot().Server("py")
	for _, tl := range v.Tools {
		if !strings.HasPrefix(tl.ServerTool, "zod_") {
			continue
		}
		want := realSchema(t, strings.ReplaceAll(tl.ServerTool, "_", "-")+".json")
		var a, b any
		_ = json.Unmarshal(tl.InputSchema, &a)
		_ = json.Unmarshal(want, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("the SDK sends %s for %s; runtime/schema/testdata has another", tl.InputSchema, tl.ServerTool)
		}
	}
}
