package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// mockOp is one request the mock tests make: through the runtime when
// recording, and from each client afterwards.
type mockOp struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

// everythingOps are requests to server-everything whose answers are the
// same from run to run: plain calls, one with progress, an image, content
// annotations, structured content, prompts with and without arguments, a
// resource, a completion.
var everythingOps = []mockOp{
	{"tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hello mock"}}},
	{"tools/call", map[string]any{"name": "get-sum", "arguments": map[string]any{"a": 2, "b": 40}}},
	{"tools/call", map[string]any{"name": "trigger-long-running-operation", "arguments": map[string]any{"duration": 0.3, "steps": 3}}},
	{"tools/call", map[string]any{"name": "get-tiny-image", "arguments": map[string]any{}}},
	{"tools/call", map[string]any{"name": "get-annotated-message", "arguments": map[string]any{"messageType": "error", "includeImage": false}}},
	{"tools/call", map[string]any{"name": "get-structured-content", "arguments": map[string]any{"location": "Chicago"}}},
	{"prompts/get", map[string]any{"name": "simple-prompt"}},
	{"prompts/get", map[string]any{"name": "args-prompt", "arguments": map[string]any{"city": "Paris", "state": "Texas"}}},
	{"resources/read", map[string]any{"uri": "demo://resource/static/document/architecture.md"}},
	{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "completable-prompt"},
		"argument": map[string]any{"name": "department", "value": "E"}}},
}

// recordEverything records a session of server-everything that makes
// everythingOps through the runtime, as `mcpdeck gateway --record` would
// when a client asks them, and returns the file.
func recordEverything(t *testing.T, ops []mockOp) string {
	t.Helper()
	node, script := jsonrpctest.Everything(t)
	cfg := &config.Config{Servers: []config.Server{{Name: "everything", Transport: config.TransportStdio, Command: node,
		Args: []string{script, "stdio"}, Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}}}
	rt := runtime.New(runtime.Options{Config: cfg, Elicitor: runtime.DeclineElicitor{}, Eras: runtime.NewEraMemory()})
	path := filepath.Join(t.TempDir(), "everything.jsonl")
	rec, err := record.Start(rt, record.Options{Path: path, Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		var err error
		switch op.Method {
		case "tools/call":
			args, _ := json.Marshal(op.Params["arguments"])
			_, err = rt.Call(ctx, runtime.CallRequest{Server: "everything", Tool: op.Params["name"].(string), Arguments: args})
		case "prompts/get":
			var args map[string]string
			if a, ok := op.Params["arguments"].(map[string]any); ok {
				args = map[string]string{}
				for k, v := range a {
					args[k] = v.(string)
				}
			}
			_, err = rt.GetPrompt(ctx, "everything", op.Params["name"].(string), args)
		case "resources/read":
			_, err = rt.ReadResource(ctx, "everything", op.Params["uri"].(string))
		case "completion/complete":
			ref := op.Params["ref"].(map[string]any)
			arg := op.Params["argument"].(map[string]any)
			_, err = rt.Complete(ctx, runtime.CompleteRequest{Server: "everything", Ref: runtime.CompletionRef{Prompt: ref["name"].(string)},
				Argument: arg["name"].(string), Value: arg["value"].(string)})
		}
		if err != nil {
			t.Fatalf("recording %s %v: %v", op.Method, op.Params, err)
		}
	}
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// clientView is what a client saw of a server: its lists (every page)
// and the answers to a script, each as JSON.
type clientView struct {
	Lists    map[string][]json.RawMessage
	Answers  []json.RawMessage // {"result": …} or {"error": {"code", "message"}}
	Progress []int             // progress notifications per request
}

// goSDKView connects the official Go SDK client over transport, in the
// protocol version given, and records what it sees.
func goSDKView(t *testing.T, transport mcp.Transport, version string, ops []mockOp) clientView {
	t.Helper()
	var mu sync.Mutex
	progress := map[any]int{}
	client := mcp.NewClient(&mcp.Implementation{Name: "mock-test", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress[req.Params.ProgressToken]++
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting the Go SDK client (%s): %v", version, err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	v := clientView{Lists: map[string][]json.RawMessage{}}
	add := func(field string, items any) {
		b, _ := json.Marshal(items)
		var raws []json.RawMessage
		_ = json.Unmarshal(b, &raws)
		v.Lists[field] = append(v.Lists[field], raws...)
	}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		add("tools", []*mcp.Tool{tool})
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		add("prompts", []*mcp.Prompt{p})
	}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		add("resources", []*mcp.Resource{r})
	}
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		add("resourceTemplates", []*mcp.ResourceTemplate{rt})
	}
	for i, op := range ops {
		var res any
		var err error
		p, _ := json.Marshal(op.Params)
		token := "op-" + string(rune('a'+i))
		switch op.Method {
		case "tools/call":
			var params mcp.CallToolParams
			_ = json.Unmarshal(p, &params)
			params.SetProgressToken(token)
			res, err = cs.CallTool(ctx, &params)
		case "prompts/get":
			var params mcp.GetPromptParams
			_ = json.Unmarshal(p, &params)
			res, err = cs.GetPrompt(ctx, &params)
		case "resources/read":
			var params mcp.ReadResourceParams
			_ = json.Unmarshal(p, &params)
			res, err = cs.ReadResource(ctx, &params)
		case "completion/complete":
			var params mcp.CompleteParams
			_ = json.Unmarshal(p, &params)
			res, err = cs.Complete(ctx, &params)
		}
		v.Answers = append(v.Answers, answerJSON(res, err))
		mu.Lock()
		v.Progress = append(v.Progress, progress[token])
		mu.Unlock()
	}
	return v
}

// answerJSON is a client's answer in the shape record.Compare reads.
func answerJSON(res any, err error) json.RawMessage {
	var wire *sdkjsonrpc.Error
	switch {
	case errors.As(err, &wire):
		return record.ErrorAnswer(wire.Code, wire.Message)
	case err != nil:
		return record.ErrorAnswer(0, err.Error())
	}
	b, _ := json.Marshal(res)
	return record.ResultAnswer(b)
}

// sameView fails the test where a client saw the mock differently from
// the original server: the lists compared by name, the answers as JSON,
// the modern envelope of a 2026-07-28 answer (resultType, caching, the
// server's name in _meta) left aside. ignore names list paths that differ
// by design.
func sameView(t *testing.T, who string, ops []mockOp, want, got clientView, ignoreLists []string) {
	t.Helper()
	d, err := record.CompareListings(record.Listing{Lists: withoutFalse(want.Lists)}, record.Listing{Lists: withoutFalse(got.Lists)}, ignoreLists)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Changes {
		t.Errorf("%s: %s: %+v", who, c, c.Fields)
	}
	for _, k := range record.ListKinds {
		if len(got.Lists[k.Field]) == 0 {
			t.Errorf("%s: no %s listed", who, k.Field)
		}
	}
	if len(got.Answers) != len(want.Answers) {
		t.Fatalf("%s: %d answers, want %d", who, len(got.Answers), len(want.Answers))
	}
	for i := range want.Answers {
		diffs, err := record.Compare(dropFalse(withoutEnvelope(want.Answers[i])), dropFalse(withoutEnvelope(got.Answers[i])), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Errorf("%s: %s %v: %s", who, ops[i].Method, ops[i].Params, d)
		}
	}
}

// withoutEnvelope strips from an answer what the 2026-07-28 revision adds
// to every result: resultType, ttlMs and cacheScope, and the protocol's
// own _meta keys (serverInfo).
func withoutEnvelope(answer json.RawMessage) json.RawMessage {
	var a map[string]map[string]any
	if json.Unmarshal(answer, &a) != nil || a["result"] == nil {
		return answer
	}
	r := a["result"]
	delete(r, "resultType")
	delete(r, "ttlMs")
	if r["cacheScope"] == "" || r["cacheScope"] == "private" {
		delete(r, "cacheScope")
	}
	if meta, ok := r["_meta"].(map[string]any); ok {
		delete(meta, "io.modelcontextprotocol/serverInfo")
		if len(meta) == 0 {
			delete(r, "_meta")
		}
	}
	b, _ := json.Marshal(a)
	return b
}

// withoutFalse drops the members that are false from every item: a flag
// written false (a prompt argument's "required", a completion's
// "hasMore") means what a flag left out means, and the gateway, which
// re-encodes what it passes on, leaves false flags out.
func withoutFalse(lists map[string][]json.RawMessage) map[string][]json.RawMessage {
	out := map[string][]json.RawMessage{}
	for k, items := range lists {
		for _, it := range items {
			out[k] = append(out[k], dropFalse(it))
		}
	}
	return out
}

func dropFalse(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, m := range x {
				if m == false {
					delete(x, k)
				} else {
					walk(m)
				}
			}
		case []any:
			for _, m := range x {
				walk(m)
			}
		}
	}
	walk(v)
	b, _ := json.Marshal(v)
	return b
}

// mockListIgnores are what differs between server-everything's lists and
// a mock's by design: the mock offers no tasks (the runtime follows a
// server's tasks itself), so no tool has execution.
var mockListIgnores = []string{"tools.*.execution"}

// progressOf is the progress notifications a client got for the call of
// trigger-long-running-operation (3 steps).
func progressOf(v clientView) int { return v.Progress[2] }

// A recording of server-everything served with `replay --serve` satisfies
// the official Go SDK client as the server itself did: the same lists
// (compared by name), the same answers — for a 2025-11-25 client over
// stdio and over Streamable HTTP, and for a 2026-07-28 one (which
// server-everything itself does not speak: the gateway serves both eras).
// At the recorded pace the call's progress comes again.
func TestReplayServeGoSDK(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	path := recordEverything(t, everythingOps)
	want := goSDKView(t, &mcp.CommandTransport{Command: exec.Command(node, script, "stdio")}, "2025-11-25", everythingOps)
	// The last of the 3 progress notifications comes with the result, at
	// the same instant: a client may have its answer before it handles
	// that one (the Go SDK's own client does, often), and then drops it
	// (progress after a result is not allowed). So 2 or 3, from the
	// server as from the mock.
	if n := progressOf(want); n < 2 || n > 3 {
		t.Fatalf("server-everything sent %d progress notifications for 3 steps", n)
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("stdio "+version, func(t *testing.T) {
			cmd := mcpdeckCmd(t, "replay", path, "--serve", "--speed", "0")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got := goSDKView(t, &mcp.CommandTransport{Command: cmd}, version, everythingOps)
			sameView(t, "Go SDK "+version, everythingOps, want, got, mockListIgnores)
			if t.Failed() {
				t.Logf("replay --serve stderr:\n%s", stderr.String())
			}
		})
	}
	t.Run("unrecorded arguments", func(t *testing.T) {
		cmd := mcpdeckCmd(t, "replay", path, "--serve")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "mock-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 41}})
		var wire *sdkjsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != -32602 || !strings.Contains(wire.Message, `had arguments {"a":2,"b":40}: /arguments/b is 40 there, 41 here`) {
			t.Fatalf("get-sum with arguments never recorded: %v", err)
		}
	})
	t.Run("http at the recorded pace", func(t *testing.T) {
		url, token := serveMockHTTP(t, path)
		got := goSDKView(t, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearerRT{token}}}, "2025-11-25", everythingOps)
		sameView(t, "Go SDK over HTTP", everythingOps, want, got, mockListIgnores)
		// As recorded: 100 ms apart, the last with the result (see above).
		if n := progressOf(got); n < 2 || n > 3 {
			t.Errorf("%d progress notifications at the recorded pace, want 3 (or 2)", n)
		}
	})
}

// serveMockHTTP runs `replay FILE --serve --http` on a free loopback port
// and returns its endpoint and the token it printed; the process is
// stopped (SIGTERM) at cleanup, and must exit 0.
func serveMockHTTP(t *testing.T, path string) (url, token string) {
	t.Helper()
	r := startServingHTTP(t, "mcpdeck replay", nil, "replay", path, "--serve", "--http", "127.0.0.1:0")
	t.Cleanup(func() { r.stop(t) })
	return r.url, r.token
}

// tsView runs the TypeScript SDK v2 client (peers/ts-dump.mjs) against a
// server on stdio (path and args), in era, with ops as its script.
func tsView(t *testing.T, era string, ops []mockOp, path string, args ...string) (clientView, map[string]json.RawMessage) {
	t.Helper()
	node, modules, peers := jsonrpctest.Node(t)
	scriptFile := filepath.Join(t.TempDir(), "ops.json")
	b, _ := json.Marshal(ops)
	if err := os.WriteFile(scriptFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	argv := []string{filepath.Join(peers, "ts-dump.mjs"), "--stdio", path, "--era", era, "--script", scriptFile}
	for _, a := range args {
		argv = append(argv, "--arg", a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, argv...)
	cmd.Env = testEnv(t, jsonrpctest.EnvNodeModules+"="+modules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-dump (%s) against %s: %v\n%s", era, path, err, stderr.String())
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("ts-dump printed %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	v := clientView{Lists: map[string][]json.RawMessage{}}
	for _, k := range record.ListKinds {
		var items []json.RawMessage
		_ = json.Unmarshal(out[k.Field], &items)
		v.Lists[k.Field] = items
	}
	_ = json.Unmarshal(out["answers"], &v.Answers)
	_ = json.Unmarshal(out["progress"], &v.Progress)
	return v, out
}

// A recording of server-everything served with `replay --serve` satisfies
// the TypeScript SDK v2 client as the server itself did: the same server
// (name, instructions), the same lists by name, the same answers, in the
// legacy era and in 2026-07-28.
func TestReplayServeTypeScript(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	path := recordEverything(t, everythingOps)
	want, wantRaw := tsView(t, "legacy", everythingOps, node, script, "stdio")
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			got, gotRaw := tsView(t, era, everythingOps, mcpdeckBin(t), "replay", path, "--serve", "--speed", "0")
			if !bytes.Contains(gotRaw["era"], []byte(era)) {
				t.Errorf("the client spoke %s", gotRaw["era"])
			}
			for _, field := range []string{"server", "instructions"} {
				if !bytes.Equal(gotRaw[field], wantRaw[field]) {
					t.Errorf("%s: %s, want %s", field, gotRaw[field], wantRaw[field])
				}
			}
			sameView(t, "TypeScript "+era, everythingOps, want, got, mockListIgnores)
		})
	}
}

// Usage errors of --serve exit 2 with what to do.
func TestReplayServeUsage(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "empty.jsonl")
	header := `{"kind":"header","format":"mcpdeck-recording","version":"1.1","mcpdeck":"test","started":"2026-12-01T00:00:00Z","part":1,"servers":[]}` + "\n"
	if err := os.WriteFile(rec, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--serve"}, "nothing to serve: the recording holds no request to any server"},
		{[]string{"--serve", "--speed", "-1"}, "--speed -1: give 1 for the recorded pace"},
		{[]string{"--http", "127.0.0.1:0"}, "--http and --speed go with --serve"},
		{[]string{"--serve", "--json"}, "give one of --json"},
		{[]string{"--serve", "--http", "0.0.0.0:0"}, "loopback"},
	} {
		r := runBin(t, "", nil, "", append([]string{"replay", rec}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("replay %v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A 2026-07-28 recording (the TypeScript SDK v2 server, spoken to in the
// modern era: server/discover, a listen stream) served with --serve
// satisfies the Go SDK client in both eras as the server itself does.
func TestReplayServeModernRecording(t *testing.T) {
	node, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	ops := []mockOp{{"tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello modern"}}}}
	r := runBin(t, "", env, "", "--protocol", "modern", "call", "--stdio", node+" "+strings.Join(args, " "), "echo", `{"text":"hello modern"}`, "--record", path)
	wantCode(t, r, ExitOK)
	direct := exec.Command(node, args...)
	direct.Env = env
	want := goSDKView(t, &mcp.CommandTransport{Command: direct}, "2026-07-28", ops)
	rec, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := record.NewMock(rec, ""); err != nil || m.Era != record.EraModern {
		t.Fatalf("the recording's era: %+v %v", m, err)
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			got := goSDKView(t, &mcp.CommandTransport{Command: mcpdeckCmd(t, "replay", path, "--serve", "--speed", "0")}, version, ops)
			d, err := record.CompareListings(record.Listing{Lists: withoutFalse(want.Lists)}, record.Listing{Lists: withoutFalse(got.Lists)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range d.Changes {
				t.Errorf("%s: %+v", c, c.Fields)
			}
			if len(got.Lists["tools"]) == 0 {
				t.Error("no tools")
			}
			diffs, _ := record.Compare(withoutEnvelope(want.Answers[0]), withoutEnvelope(got.Answers[0]), nil)
			for _, d := range diffs {
				t.Errorf("echo: %s", d)
			}
		})
	}
}
