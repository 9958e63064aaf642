package runtime

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/schema"
)

// envLazyChild makes TestLazySchemas run its body in a fresh process,
// where nothing else has compiled a schema yet.
const envLazyChild = "MCPDECK_RUNTIME_TEST_LAZY_SCHEMAS"

// A one-shot call under --no-validate (Options.LazySchemas, NoValidate)
// never compiles the validator's meta-schemas: nothing validates, so
// nothing should pay for them; a call that validates compiles them.
// (Without LazySchemas they are compiled in the background as the first
// server starts, for the first call to validate at once.) Each case runs
// in a fresh copy of the test binary: the meta-schemas are compiled once
// per process.
func TestLazySchemas(t *testing.T) {
	if mode := os.Getenv(envLazyChild); mode != "" {
		lazySchemasChild(t, mode == "validate")
		return
	}
	for _, mode := range []string{"no-validate", "validate"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLazySchemas$", "-test.count=1")
			cmd.Env = append(os.Environ(), envLazyChild+"="+mode)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

func lazySchemasChild(t *testing.T, validate bool) {
	if schema.MetaschemasCompiled() {
		t.Fatal("the meta-schemas were compiled before anything ran")
	}
	c := New(Options{Config: configOf(fakeServer("s", jsonrpctest.Normal)), StopGrace: 500 * time.Millisecond, LazySchemas: true})
	t.Cleanup(func() {
		if err := c.Shutdown(ctxFor(t, 30*time.Second)); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "s", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`), NoValidate: !validate}); err != nil {
		t.Fatal(err)
	}
	switch compiled := schema.MetaschemasCompiled(); {
	case !validate && compiled:
		t.Fatal("a call that validates nothing (NoValidate, LazySchemas) compiled the meta-schemas")
	case validate && !compiled:
		t.Fatal("a call that validated its arguments did not compile the meta-schemas")
	}
}
