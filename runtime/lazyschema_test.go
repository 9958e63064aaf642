package runtime

import (
	"encoding/json"
	"errors"
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

// A one-shot call never compiles the validator's meta-schemas for a tool
// whose input schema is plain (schema's vouch vouches for it, as it does
// for the fake's echo): under --no-validate nothing validates, and with
// validation the arguments are still checked — a wrong one is refused —
// against a schema compiled without them. (A schema outside the plain
// subset compiles them on first use: schema's
// TestMetaschemasCompiledOnlyForWhatVouchLeaves.) Each case runs in a
// fresh copy of the test binary: the meta-schemas are compiled once per
// process.
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
	c := New(Options{Config: configOf(fakeServer("s", jsonrpctest.Normal)), StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() {
		if err := c.Shutdown(ctxFor(t, 30*time.Second)); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "s", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`), NoValidate: !validate}); err != nil {
		t.Fatal(err)
	}
	if validate {
		_, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "s", Tool: "echo", Arguments: json.RawMessage(`{"text":5}`)})
		if !errors.Is(err, ErrInvalidArguments) {
			t.Fatalf("a number for echo's string text: %v, want the arguments refused", err)
		}
	}
	if schema.MetaschemasCompiled() {
		t.Fatalf("a call (validating: %v) on a plain schema compiled the meta-schemas", validate)
	}
}
