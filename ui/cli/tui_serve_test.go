package cli

//lint:file-ignore SA1019 roots are current in the session revision this test speaks (deprecated only in 2026-07-28)

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayPeer is a go-sdk server that asks its client, during a call, for
// its roots (roots) or to open a link (connect, a URL-mode elicitation).
func relayPeer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "relay-peer", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, &mcp.ListRootsParams{})
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, " ")}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "connect", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: "https://example.com/link", Message: "Link your account.", ElicitationID: "link-1"})
			if err != nil {
				return nil, err
			}
			if res.Action == "accept" {
				// The out-of-band flow finished.
				_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "link-1"})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
		})
	return s
}

// `mcpdeck --serve` runs the gateway on the TUI's runtime with the relay
// `mcpdeck gateway` has (one function builds both runtimes' options):
// roots and URL-mode elicitation are declared to the servers for the
// gateway's clients, and a server's roots/list and URL elicitation
// during a client's call reach that client. Before, the TUI declared
// neither, and the server could ask its clients for neither. The URL
// elicitation reaches a 2025-11-25 client with an elicitationId and the
// server's notifications/elicitation/complete under it, and a 2026-07-28
// client without one, as through `mcpdeck gateway`.
func TestServeRelaysToItsClients(t *testing.T) {
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return relayPeer() }, nil))
	defer upstream.Close()
	w := newConfigWorld(t)
	const token = "serve-relay-test-token-0123456789abcdef"
	auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
	w.write(t, filepath.Join(w.userDir, "mcp.json"), `{"mcpServers": {"up": {"url": "`+upstream.URL+`", "protocol": "legacy"}}, "gateway": {"token": "`+token+`", "audit": {"file": "`+auditFile+`"}}}`)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	in, keys := io.Pipe()
	var out lockedBuffer
	errOut := &toldBuffer{told: make(chan struct{}, 1)}
	done := make(chan int, 1)
	go func() { done <- run([]string{"--serve", addr, "--enable"}, in, &out, errOut) }()
	defer func() {
		keys.Write([]byte("q"))
		select {
		case code := <-done:
			if code != ExitOK {
				t.Errorf("the TUI exited %d: %s", code, errOut.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("the TUI did not quit on q")
		}
		keys.Close()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asked := make(chan *mcp.ElicitParams, 4)
	changed := make(chan struct{}, 1)
	completed := make(chan string, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-relay", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}, ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params
		return &mcp.ElicitResult{Action: "accept"}, nil
	}, ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
		completed <- req.Params.ElicitationID
	}, ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	client.AddRoots(&mcp.Root{URI: "file:///client/project", Name: "project"})
	// The TUI says where it serves once it listens (before the screen is
	// its); MCP comes up beside it, and the tools with list_changed.
	for !strings.Contains(errOut.String(), "serving MCP") {
		select {
		case <-errOut.told:
		case <-ctx.Done():
			t.Fatalf("the TUI never said it serves: %s", errOut.String())
		}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerRT{token}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, errOut.String())
	}
	defer cs.Close()
	for {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "up__connect" }) {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the gateway never offered up__connect: %s", errOut.String())
		}
	}
	call := func(tool string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up__" + tool, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", tool, err, res, errOut.String())
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got := call("roots"); got != "file:///client/project" {
		t.Fatalf("roots: the server was told %q, want the client's", got)
	}
	if got := call("connect"); got != "accept" {
		t.Fatalf("connect: the server heard %q", got)
	}
	// A 2025-11-25 client is given an elicitationId of the gateway's, not
	// the server's, which another server may use too.
	p := <-asked
	if p.Mode != "url" || p.URL != "https://example.com/link" || p.ElicitationID == "" || p.ElicitationID == "link-1" {
		t.Fatalf("the client was asked %+v", p)
	}
	select {
	case id := <-completed:
		if id != p.ElicitationID {
			t.Fatalf("the client was told %q completed, want %q", id, p.ElicitationID)
		}
	case <-ctx.Done():
		t.Fatalf("the server's notifications/elicitation/complete never reached the client: %s", errOut.String())
	}

	// A 2026-07-28 client: asked inside an input_required answer, with no
	// elicitationId, which its revision does not have.
	modern, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerRT{token}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connect (2026-07-28): %v", err)
	}
	defer modern.Close()
	if res, err := modern.CallTool(ctx, &mcp.CallToolParams{Name: "up__connect", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("connect (2026-07-28): %v %+v", err, res)
	}
	if p := <-asked; p.Mode != "url" || p.ElicitationID != "" {
		t.Fatalf("a 2026-07-28 client was asked %+v", p)
	}

	// The configured audit log (gateway.audit) has every call, as
	// `mcpdeck gateway` writes it: one construction serves both faces.
	// Before, the TUI's gateway wrote none.
	audit, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatalf("the TUI's gateway kept no audit log at gateway.audit.file: %v", err)
	}
	// The 2026-07-28 client's connect is two requests: the one answered
	// input_required, and its retry.
	if n := strings.Count(string(audit), `"tool":"up__connect"`); n != 3 || !strings.Contains(string(audit), `"tool":"up__roots"`) {
		t.Fatalf("the audit log has %d lines for up__connect, want 3, and one for up__roots:\n%s", n, audit)
	}
}

// toldBuffer is a lockedBuffer that says on told when it was written to.
type toldBuffer struct {
	lockedBuffer
	told chan struct{}
}

func (b *toldBuffer) Write(p []byte) (int, error) {
	n, err := b.lockedBuffer.Write(p)
	select {
	case b.told <- struct{}{}:
	default:
	}
	return n, err
}
