//go:build unix

package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// writeUserConfig puts servers into the user's mcp.json of w.
func writeUserConfig(t *testing.T, w configWorld, servers map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, filepath.Join(w.userDir, "mcp.json"), string(data))
}

// A tool whose input schema nests 2,000 levels used to take 29 s to
// compile before the call was sent; it is refused at once, naming why.
func TestCallWithDeeplyNestedSchemaFailsFast(t *testing.T) {
	w := newConfigWorld(t)
	writeUserConfig(t, w, map[string]any{"fake": srvFake(jsonrpctest.DeepSchema, jsonrpctest.WithDepth(2000))})
	code, _, stderr := w.run(t, "call", "fake", "deep", `{}`)
	if code == ExitOK || !strings.Contains(stderr, "too deeply nested") {
		t.Fatalf("exit %d, stderr %q; want the call refused because the schema nests too deeply", code, stderr)
	}
}

// At 5,000 levels the tools/list response exceeds the JSON decoder's
// limit; it used to be counted as stdout noise while tools/list hung until
// the startup timeout. The server now fails at once, saying why.
func TestUndecodableToolListFailsTheServer(t *testing.T) {
	w := newConfigWorld(t)
	writeUserConfig(t, w, map[string]any{"fake": srvFake(jsonrpctest.DeepSchema, jsonrpctest.WithDepth(5000))})
	code, _, stderr := w.run(t, "tools", "fake")
	if code != ExitConnection || !strings.Contains(stderr, "could not be decoded") || strings.Contains(stderr, "startup timeout") {
		t.Fatalf("exit %d, stderr %q; want a connection failure saying the tools/list response could not be decoded", code, stderr)
	}
}

// call against a server that answers with the wrong id, or notifies
// instead of answering, used to say only "timed out"; it says what came.
func TestCallTimeoutSaysWhatArrived(t *testing.T) {
	for mode, want := range map[jsonrpctest.Mode]string{
		jsonrpctest.WrongID:       "which matches no request",
		jsonrpctest.NotifyInstead: "which never answer a request",
		jsonrpctest.NullIDError:   "an error with a null id",
	} {
		t.Run(string(mode), func(t *testing.T) {
			w := newConfigWorld(t)
			writeUserConfig(t, w, map[string]any{"fake": srvFake(mode)})
			code, _, stderr := w.run(t, "call", "fake", "echo", `{"text":"x"}`, "--timeout", "500ms")
			if code != ExitTimeout || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want a timeout that says %q", code, stderr, want)
			}
		})
	}
}
