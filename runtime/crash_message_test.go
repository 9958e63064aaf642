package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A call that meets a crash names its server and method once: every face
// prints this message ("adhoc: tools/call: connection closed: …"), and the
// transport's own "tools/call: connection closed" must not repeat the method.
func TestCrashedCallNamesItsMethodOnce(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("c", jsonrpctest.CrashOnCall))
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "c", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	const want = "c: tools/call: connection closed: server process exited with status 3; last stderr line: "
	if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("error = %v, want it to start %q", err, want)
	}
}

// A tool whose input schema is not valid JSON Schema cannot have its
// arguments checked: the call is refused as the server's schema problem
// (KindSchema), not as arguments to fix, and --no-validate still sends it.
func TestCallOfToolWithInvalidSchemaBlamesTheSchema(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("s", jsonrpctest.InvalidSchema))
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "s", Tool: "bad_type", Arguments: json.RawMessage(`{"x":"y"}`)})
	if !errors.Is(err, ErrSchema) || KindOf(err) != KindSchema || errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("error = %v (kind %v), want a schema problem, not invalid arguments", err, KindOf(err))
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "s: tools/call: ") || !strings.Contains(msg, `input schema of tool "bad_type" is not valid JSON Schema`) || !strings.Contains(msg, "/properties/x/type") {
		t.Errorf("error = %q, want it to name the tool, say its schema is invalid and why", msg)
	}
	res, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "s", Tool: "bad_type", Arguments: json.RawMessage(`{"x":"y"}`), NoValidate: true})
	if err != nil || res.IsError {
		t.Fatalf("with NoValidate: %v %+v, want the server's answer", err, res)
	}
}

// A start that the server refuses with a JSON-RPC error names the request
// it refused: the server's own words alone ("Method not found") do not say
// that the opening failed. The peer is cat, which sends every request back:
// mcpdeck answers its own initialize -32601, and cat returns that answer
// as the server's, as a server that refuses initialize would.
func TestRefusedStartNamesItsMethod(t *testing.T) {
	t.Parallel()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal("cat is not on PATH")
	}
	c := newController(t, config.Server{Name: "echo", Transport: config.TransportStdio, Command: cat, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second})
	_ = c.SetEnabled(ctxFor(t, 30*time.Second), true)
	srv, _ := c.Snapshot().Server("echo")
	info := srv.LastError
	if info == nil || info.Kind != KindProtocol || info.Method != "initialize" || info.Code != CodeMethodNotFound ||
		info.Error() != "echo: initialize: mcpdeck does not handle initialize" {
		t.Fatalf("last error = %#v, want the refusal of initialize, named", info)
	}
}

// The method a refused request names is known to errorInfo from the
// error, not from its caller, and its text is as before.
func TestErrorInfoTakesTheFailedMethod(t *testing.T) {
	t.Parallel()
	rpc := &jsonrpc.Error{Code: -32602, Message: "Unsupported protocol version"}
	for err, want := range map[error]string{
		failedIn("initialize", rpc):      "initialize",
		failedIn("server/discover", rpc): "server/discover",
		rpc:                              "",
		fmt.Errorf("waiting: %w", failedIn("tools/list", rpc)): "tools/list",
	} {
		if got := errorInfo("s", "", err).Method; got != want {
			t.Errorf("errorInfo(%q).Method = %q, want %q", err, got, want)
		}
	}
	if got := failedIn("initialize", rpc).Error(); got != "initialize: "+rpc.Error() {
		t.Errorf("text %q", got)
	}
}

// A server that ends with status 0 before it answers has exited (the
// kind whose hint points at its stderr), with its last stderr line, as a
// failing one is: a program that prints its usage and ends was "the
// connection closed; run the command again".
func TestStartThatEndsWithStatusZeroIsAnExit(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("sh is not on PATH")
	}
	c := newController(t, config.Server{Name: "usage", Transport: config.TransportStdio, Command: sh, Args: []string{"-c", "echo 'usage: server [--stdio]' >&2"},
		Enabled: true, StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second})
	_ = c.SetEnabled(ctxFor(t, 30*time.Second), true)
	srv, _ := c.Snapshot().Server("usage")
	info := srv.LastError
	if info == nil || info.Kind != KindExited || !strings.HasSuffix(info.Message, "server process exited with status 0; last stderr line: usage: server [--stdio]") {
		t.Fatalf("last error = %#v, want an exit with status 0 and its stderr line", info)
	}
}
