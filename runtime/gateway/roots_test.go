package gateway

//lint:file-ignore SA1019 roots are current in the session revisions the gateway serves (deprecated only in 2026-07-28)

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// envRoots makes the test binary a go-sdk server with one tool, roots,
// that asks the client for its roots (roots/list) and answers their URIs,
// and a prompt, pick, whose completions are empty. It writes "roots
// changed" on stderr when told notifications/roots/list_changed. Its
// tool connect asks a URL-mode elicitation and answers the action; its
// tool caps answers the client capabilities its request declared (see
// urlelicit_test.go).
const envRoots = "MCPDECK_GATEWAY_TEST_ROOTS"

func maybeServeRoots() {
	if os.Getenv(envRoots) != "1" {
		return
	}
	// Its completions are empty the way a go-sdk handler's zero result
	// sends them: "values": null.
	s := mcp.NewServer(&mcp.Implementation{Name: "roots-server", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{}, nil
		},
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			fmt.Fprintln(os.Stderr, "roots changed")
		},
	})
	s.AddPrompt(&mcp.Prompt{Name: "pick", Arguments: []*mcp.PromptArgument{{Name: "what"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	// The 2026-07-28 way (MRTR): ask with input_required, read the answer
	// from the retry. The SDK turns it into a roots/list request for a
	// legacy client.
	s.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok {
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, " ")}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}, RequestState: "roots-v1"}, nil
		})
	addElicitTools(s)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// rootsServer is the go-sdk server of maybeServeRoots, spoken to in
// protocol (legacy, modern).
func rootsServer(name, protocol string) config.Server {
	exe, _ := os.Executable()
	return config.Server{Name: name, Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"}, Protocol: protocol,
		Env: map[string]string{envRoots: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
}

// A server's roots/list during a client's call is answered with that
// client's roots when it declared them (a legacy client is asked, a
// modern one gets input_required), and with mcpdeck's own otherwise.
func TestRootsGoToTheCaller(t *testing.T) {
	t.Parallel()
	// The server is spoken to in each era: a 2026-07-28 server asks inside
	// its answer (input_required), a legacy one with a request of its own.
	for _, upstream := range []string{"modern", "legacy"} {
		t.Run(upstream+" server", func(t *testing.T) { rootsGoToTheCaller(t, upstream) })
	}
}

func rootsGoToTheCaller(t *testing.T, upstream string) {
	own := t.TempDir()
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{rootsServer("r", upstream)}}, Roots: []string{own}, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { _ = rt.Shutdown(context.Background()) })
	if err := rt.SetEnabled(ctxFor(t, 30*time.Second), true); err != nil {
		t.Fatal(err)
	}
	if v, _ := rt.Snapshot().Server("r"); v.Era.String() != upstream {
		t.Fatalf("the server is spoken to in era %s, want %s", v.Era, upstream)
	}
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	ownURI := "file://" + filepath.ToSlash(own)
	for _, tc := range []struct {
		name, era string
		roots     bool
		transport func() mcp.Transport
		want      string
	}{
		{"legacy client with roots", "legacy", true, func() mcp.Transport { return pipeTransport(t, g) }, "file:///client/project"},
		{"modern client with roots", "modern", true, func() mcp.Transport { return httpTransport(url) }, "file:///client/project"},
		{"client without roots", "legacy", false, func() mcp.Transport { return pipeTransport(t, g) }, ownURI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
			if tc.roots {
				opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: tc.name, Version: "1"}, opts)
			c.AddRoots(&mcp.Root{URI: "file:///client/project", Name: "project"})
			cs := connect(t, c, tc.transport(), tc.era)
			res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "r__roots", Arguments: map[string]any{}})
			if err != nil || textOf(res) != tc.want {
				t.Fatalf("roots: %v %+v; want %q", err, res, tc.want)
			}
			// Every round of the runtime's request (a modern server asks
			// with input_required, answered by a retry with a new id) was
			// filed for RequestOf, and none is left once it ended.
			g.mu.Lock()
			left := len(g.forwards)
			g.mu.Unlock()
			if left != 0 {
				t.Fatalf("%d runtime requests still attributed to clients after the call ended", left)
			}
		})
	}
}

// A legacy client's notifications/roots/list_changed reaches the
// session-era servers that were given its roots, and the next roots/list
// during its call gets the new ones.
func TestRootsChangedReachesTheServersGivenThem(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, rootsServer("r", "legacy"))
	g := newGateway(t, rt, Options{})
	c := mcp.NewClient(&mcp.Implementation{Name: "changer", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}}})
	c.AddRoots(&mcp.Root{URI: "file:///one", Name: "one"})
	cs := connect(t, c, pipeTransport(t, g), "legacy")
	ctx := ctxFor(t, 30*time.Second)
	call := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "r__roots", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("roots: %v %+v", err, res)
		}
		return textOf(res)
	}
	if got := call(); got != "file:///one" {
		t.Fatalf("roots: %q", got)
	}
	c.AddRoots(&mcp.Root{URI: "file:///two", Name: "two"}) // the client sends list_changed
	waitStderr(t, rt, "r", "roots changed")
	if got := call(); got != "file:///one file:///two" {
		t.Fatalf("roots after the change: %q", got)
	}
}
