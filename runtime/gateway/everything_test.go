package gateway

//lint:file-ignore SA1019 roots are current in the session revisions the gateway serves (deprecated only in 2026-07-28)

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/runtimetest"
)

// tsDump runs the TypeScript SDK v2 client (peers/ts-dump.mjs) against
// the gateway at url, in era, sending ops in order, and returns its
// answers as the client parsed them.
func tsDump(t *testing.T, url, era string, ops []map[string]any) []json.RawMessage {
	t.Helper()
	node, modules, peers := jsonrpctest.Node(t)
	script := filepath.Join(t.TempDir(), "ops.json")
	b, _ := json.Marshal(ops)
	if err := os.WriteFile(script, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(peers, "ts-dump.mjs"), "--url", url, "--bearer", testToken, "--era", era, "--script", script)
	cmd.Env = append(os.Environ(), jsonrpctest.EnvNodeModules+"="+modules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-dump (%s): %v\n%s", era, err, stderr.String())
	}
	var out struct{ Answers []json.RawMessage }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Answers) != len(ops) {
		t.Fatalf("ts-dump printed %q (%v)\n%s", stdout.String(), err, stderr.String())
	}
	return out.Answers
}

// A completion passes through the gateway as the server sent it:
// server-everything (TypeScript SDK v1) answers every completion with
// total and hasMore, false included, and a TypeScript SDK v2 client that
// pages on hasMore sees them, in either era.
func TestCompletionAsTheServerSentIt(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, everythingServer(t))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	ops := []map[string]any{
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "department", "value": "S"}}},
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "name", "value": ""}, "context": map[string]any{"arguments": map[string]any{"department": "Sales"}}}},
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "department", "value": "Nothing"}}},
	}
	want := []string{
		`{"values":["Sales","Support"],"total":2,"hasMore":false}`,
		`{"values":["David","Eve","Frank"],"total":3,"hasMore":false}`,
		`{"values":[],"total":0,"hasMore":false}`,
	}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			for i, a := range tsDump(t, url, era, ops) {
				var got struct {
					Result struct{ Completion json.RawMessage }
					Error  any
				}
				if err := json.Unmarshal(a, &got); err != nil || got.Error != nil {
					t.Fatalf("answer %d: %s", i, a)
				}
				if !jsonEqual(got.Result.Completion, want[i]) {
					t.Errorf("completion %d reached the client as %s, the server sent %s", i, got.Result.Completion, want[i])
				}
			}
		})
	}
}

// jsonEqual reports whether raw and want hold the same JSON value.
func jsonEqual(raw json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A completion whose values are null (a go-sdk server's empty result)
// reaches the client with values [], the one repair the gateway makes: a
// client cannot read null where the revision has an array.
func TestCompletionNullValuesBecomeEmpty(t *testing.T) {
	t.Parallel()
	g := newGateway(t, newRuntime(t, rootsServer("r", "legacy")), Options{})
	url := serveHTTP(t, g)
	a := tsDump(t, url, "legacy", []map[string]any{{"method": "completion/complete", "params": map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "r__pick"}, "argument": map[string]any{"name": "what", "value": "x"}}}})[0]
	var got struct {
		Result struct{ Completion json.RawMessage }
	}
	if err := json.Unmarshal(a, &got); err != nil || !jsonEqual(got.Result.Completion, `{"values":[]}`) {
		t.Fatalf("the client got %s, want completion {\"values\":[]}", a)
	}
}

// everythingGateway is a gateway over server-everything alone, with
// mcpdeck's own roots when roots are given; it waits for the server's
// tool.
func everythingGateway(t *testing.T, tool string, roots ...string) (*runtime.Controller, *Gateway) {
	t.Helper()
	opts := gatewayRuntime
	opts.Roots = roots
	rt := runtimetest.Start(t, opts, everythingServer(t))
	waitTool(t, rt, "everything", tool)
	return rt, newGateway(t, rt, Options{})
}

// waitStderr waits until server's stderr tail holds a line with text.
func waitStderr(t *testing.T, rt *runtime.Controller, server, text string) string {
	t.Helper()
	var line string
	waitServer(t, rt, server, func(v runtime.ServerSnapshot) (bool, string) {
		for _, l := range v.Stderr {
			if strings.Contains(l, text) {
				line = l
				return true, ""
			}
		}
		return false, fmt.Sprintf("never wrote %q on stderr; its tail: %q", text, v.Stderr)
	})
	return line
}

// waitServer waits, on the runtime's events, until done holds for
// server's view; done says what is still missing, for the failure.
func waitServer(t *testing.T, rt *runtime.Controller, server string, done func(runtime.ServerSnapshot) (bool, string)) {
	t.Helper()
	events, stop := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 12})
	defer stop()
	deadline := time.After(20 * time.Second)
	for {
		v, _ := rt.Snapshot().Server(server)
		ok, missing := done(v)
		if ok {
			return
		}
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("%s %s", server, missing)
		}
	}
}

// server-everything declares get-roots-list to a client with roots, asks
// for them once the session is initialized, and again during the tool
// when that first answer failed. Through the gateway, with nothing
// configured, the first ask (no client's request in flight) is refused,
// saying why; the tool's ask reaches the client that called it, in
// either era; a client without roots gets an empty list, and mcpdeck's
// configured roots when there are some.
func TestRootsOfTheCallerReachEverything(t *testing.T) {
	t.Parallel()
	const project = "file:///client/project"
	own := t.TempDir()
	for _, tc := range []struct {
		name, era  string
		clientRoot bool
		configured []string
		want       string
	}{
		{"legacy client with roots", "legacy", true, nil, project},
		{"modern client with roots", "modern", true, nil, project},
		{"client without roots", "legacy", false, nil, "no roots are currently configured"},
		{"client without roots, mcpdeck's roots", "legacy", false, []string{own}, "file://" + filepath.ToSlash(own)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rt, g := everythingGateway(t, "get-roots-list", tc.configured...)
			if tc.configured == nil {
				line := waitStderr(t, rt, "everything", "Failed to request roots")
				if !strings.Contains(line, "only during a request") {
					t.Fatalf("the session-wide roots/list was refused without saying why: %q", line)
				}
			}
			opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
			if tc.clientRoot {
				opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: tc.name, Version: "1"}, opts)
			c.AddRoots(&mcp.Root{URI: project, Name: "project"})
			tr := pipeTransport(t, g)
			if tc.era == "modern" {
				tr = httpTransport(serveHTTP(t, g))
			}
			cs := connect(t, c, tr, tc.era)
			res, err := cs.CallTool(ctxFor(t, 30*time.Second), &mcp.CallToolParams{Name: "everything__get-roots-list", Arguments: map[string]any{}})
			if err != nil || res.IsError || !strings.Contains(textOf(res), tc.want) {
				t.Fatalf("get-roots-list: %v %+v; want %q", err, res, tc.want)
			}
		})
	}
}

// server-everything offers trigger-url-elicitation only to a client that
// declared URL-mode elicitation: the gateway declares it, passes the
// server's URL elicitation to a client that declared url mode (a
// server→client request, or input_required for a modern client), and
// answers for one that did not as such a client does: -32602.
func TestURLElicitationReachesTheCaller(t *testing.T) {
	t.Parallel()
	_, g := everythingGateway(t, "trigger-url-elicitation")
	url := serveHTTP(t, g)
	for _, tc := range []struct {
		name, era string
		url       bool
	}{
		{"legacy client with url mode", "legacy", true},
		{"modern client with url mode", "modern", true},
		{"legacy client with form mode only", "legacy", false},
		{"modern client with form mode only", "modern", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := make(chan *mcp.ElicitParams, 4)
			caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
			if tc.url {
				caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: tc.name, Version: "1"}, &mcp.ClientOptions{Capabilities: caps,
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked <- req.Params
					return &mcp.ElicitResult{Action: "accept"}, nil
				}})
			tr := pipeTransport(t, g)
			if tc.era == "modern" {
				tr = httpTransport(url)
			}
			cs := connect(t, c, tr, tc.era)
			res, err := cs.CallTool(ctxFor(t, 30*time.Second), &mcp.CallToolParams{Name: "everything__trigger-url-elicitation",
				Arguments: map[string]any{"url": "https://example.com/connect", "message": "Connect your account.", "elicitationId": "el-1"}})
			said := heard(res, err)
			if !tc.url {
				if !strings.Contains(said, "-32602") || !strings.Contains(said, "url") {
					t.Fatalf("a client without url mode: the server heard %q, want -32602 saying why", said)
				}
				select {
				case p := <-asked:
					t.Fatalf("a client without url mode was asked %+v", p)
				default:
				}
				return
			}
			if err != nil || !strings.Contains(said, "User completed the URL elicitation flow") {
				t.Fatalf("trigger-url-elicitation: %s", said)
			}
			p := waitFor(t, "the URL elicitation", asked, nil)
			if p.Mode != "url" || p.URL != "https://example.com/connect" || p.Message != "Connect your account." {
				t.Fatalf("the client was asked %+v", p)
			}
			// The gateway's own id, not the server's (which another server
			// may use too): TestURLElicitationCarriesWhatTheClientsEraHas.
			if tc.era == "legacy" && (p.ElicitationID == "" || p.ElicitationID == "el-1") {
				t.Fatalf("a 2025-11-25 client was asked without an elicitationId of the gateway's: %+v", p)
			}
		})
	}
}
