package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"mcpdeck/internal/porttest"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestJSONErrorObject: with --json, a command that fails prints one JSON
// object on stdout, {"error": {"kind", "message", "server"}}, besides the
// human message on stderr and with the exit status it always had; an
// isError result stays a result.
func TestJSONErrorObject(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":  srvDemo(t, "0"),
		"crash": srvFake(jsonrpctest.CrashOnCall),
		"broke": srvFake(jsonrpctest.ExitEarly),
		"bad":   {"url": "htp://127.0.0.1:1/mcp"},
		"down":  {"url": fmt.Sprintf("http://127.0.0.1:%d/mcp", porttest.Free(t))},
		"authz": {"url": brokenAuthorization(t) + "/mcp"},
	})
	for _, tc := range []struct {
		name         string
		args         []string
		code         int
		kind, server string
		says         string // in the message
	}{
		{"call unknown server", []string{"call", "nosuch", "echo"}, ExitUsage, "unknown-server", "nosuch", `no server "nosuch"`},
		{"call unknown tool", []string{"call", "demo", "nosuch"}, ExitUsage, "unknown-tool", "demo", `unknown tool "nosuch"`},
		{"call refused arguments", []string{"call", "demo", "add", `{"a":"one"}`}, ExitUsage, "invalid-arguments", "demo", "input schema"},
		{"call server crashed", []string{"call", "crash", "echo", `{"text":"x"}`}, ExitConnection, "exited", "crash", "crash"},
		{"call server never up", []string{"call", "broke", "echo", `{"text":"x"}`}, ExitConnection, "exited", "broke", "broke"},
		// Nothing listening: the HTTP exchange failed (kind transport, with
		// its hint), not an unknown failure.
		{"call server unreachable", []string{"call", "down", "echo", `{"text":"x"}`}, ExitConnection, "transport", "down", "connection refused"},
		// The server answered, asking for authorization, and finding its
		// authorization server failed: kind auth, naming the metadata URL
		// and its answer, not "server unreachable".
		{"call authorization discovery failed", []string{"call", "authz", "echo", `{"text":"x"}`}, ExitConnection, "auth", "authz", "/.well-known/oauth-protected-resource: HTTP 500"},
		// An invalid definition is the configuration's kind, about its server.
		{"call invalid server", []string{"call", "bad", "echo"}, ExitUsage, "config", "bad", `server "bad" has an invalid configuration`},
		{"tools invalid server", []string{"tools", "bad"}, ExitUsage, "config", "bad", `server "bad" has an invalid configuration`},
		{"tools unknown server", []string{"tools", "nosuch"}, ExitUsage, "unknown-server", "nosuch", `no server "nosuch"`},
		{"tools unknown tool", []string{"tools", "demo", "nosuch"}, ExitUsage, "unknown-tool", "demo", `"nosuch"`},
		{"read unknown server", []string{"read", "nosuch", "demo://x"}, ExitUsage, "unknown-server", "nosuch", `no server "nosuch"`},
		{"read missing resource", []string{"read", "demo", "demo://no-such-resource"}, ExitUsage, "protocol", "demo", "demo://no-such-resource"},
		{"servers unknown server", []string{"servers", "nosuch"}, ExitUsage, "unknown-server", "nosuch", `no server "nosuch"`},
		// A listing whose only server never came up failed as a whole: the
		// error object, not an empty list a script reads as "none".
		{"tools server never up", []string{"tools", "broke"}, ExitConnection, "exited", "broke", `server "broke"`},
		{"prompts server never up", []string{"prompts", "broke"}, ExitConnection, "exited", "broke", `server "broke"`},
		{"resources server never up", []string{"resources", "broke"}, ExitConnection, "exited", "broke", `server "broke"`},
		{"templates server never up", []string{"resources", "broke", "--templates"}, ExitConnection, "exited", "broke", `server "broke"`},
		// The flags did not parse: --json is read from the arguments.
		{"tools unknown flag", []string{"tools", "--bogus"}, ExitUsage, "unknown", "", "unknown flag: --bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(t, "", append(tc.args, "--json")...)
			wantCode(t, r, tc.code)
			var out struct {
				Error *struct{ Kind, Message, Server string }
			}
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&out); err != nil || out.Error == nil || dec.More() {
				t.Fatalf("stdout is not one error object (%v):\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
			}
			e := out.Error
			if e.Kind != tc.kind || e.Server != tc.server || !strings.Contains(e.Message, tc.says) {
				t.Errorf("error object %+v, want kind %q, server %q, a message saying %q", *e, tc.kind, tc.server, tc.says)
			}
			if !strings.HasPrefix(r.stderr, "mcpdeck: ") && !strings.Contains(r.stderr, "\nmcpdeck: ") {
				t.Errorf("stderr lost the human message:\n%s", r.stderr)
			}
			// The kind given for --json adds no second advice to a message
			// that says what to do.
			if strings.Contains(r.stderr, "unreachable") && tc.kind != "transport" {
				t.Errorf("stderr calls a server that answered unreachable:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, "(list the") || strings.Contains(r.stderr, "(the HTTP exchange failed") {
				t.Errorf("stderr has a hint the message already gives:\n%s", r.stderr)
			}
		})
	}

	// A listing of many where one server failed prints what the others
	// listed, and the failure beside it in "errors", each as the error
	// object's body.
	r0 := h.run(t, "", "tools", "demo", "broke", "--json")
	wantCode(t, r0, ExitConnection)
	var listed struct {
		Tools []struct {
			Server string `json:"server"`
		} `json:"tools"`
		Errors []struct{ Kind, Message, Server string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r0.stdout), &listed); err != nil || len(listed.Tools) == 0 || listed.Tools[0].Server != "demo" {
		t.Fatalf("tools demo broke --json printed %q (%v), want demo's tools", r0.stdout, err)
	}
	if len(listed.Errors) != 1 || listed.Errors[0].Server != "broke" || listed.Errors[0].Kind != "exited" || !strings.Contains(listed.Errors[0].Message, `server "broke"`) {
		t.Errorf("tools demo broke --json: errors %+v, want broke's failure (kind exited)", listed.Errors)
	}
	if !strings.Contains(r0.stderr, `mcpdeck: server "broke"`) {
		t.Errorf("stderr lost the failure:\n%s", r0.stderr)
	}

	// Without --json, stdout stays empty.
	r := h.run(t, "", "call", "nosuch", "echo")
	wantCode(t, r, ExitUsage)
	if r.stdout != "" {
		t.Errorf("without --json a failure printed on stdout: %q", r.stdout)
	}
	// A tool's isError is a result: the result, no error object.
	r = h.run(t, "", "call", "demo", "fail", "--json")
	wantCode(t, r, ExitToolError)
	var res struct {
		IsError bool `json:"isError"`
		Error   any  `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || !res.IsError || res.Error != nil {
		t.Errorf("call fail --json printed %q (%v), want the isError result alone", r.stdout, err)
	}
}

// brokenAuthorization serves an MCP endpoint on loopback that asks for
// authorization (401, a challenge naming its protected resource metadata)
// whose metadata document fails with HTTP 500; it returns the server's URL.
func brokenAuthorization(t *testing.T) string {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			http.Error(w, "metadata store down", http.StatusInternalServerError)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
