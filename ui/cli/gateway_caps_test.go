package cli

//lint:file-ignore SA1019 roots are current in the session revision this test speaks (deprecated only in 2026-07-28)

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// `mcpdeck gateway` declares roots and URL-mode elicitation to its
// servers for the clients that have them, with no roots configured:
// server-everything then offers get-roots-list and trigger-url-elicitation,
// and the roots it asks for during a client's call are that client's.
func TestGatewayDeclaresWhatItsClientsAnswer(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	h := newHeadless(t, map[string]map[string]any{"every": {"command": node, "args": []string{script, "stdio"}}})
	cmd := mcpdeckCmd(t, "--config", h.cfg, "gateway")
	cmd.Env = testEnv(t, h.env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "caps-test", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}, ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	client.AddRoots(&mcp.Root{URI: "file:///client/project", Name: "project"})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	all := strings.Join(names, " ")
	for _, want := range []string{"every__get-roots-list", "every__trigger-url-elicitation"} {
		if !strings.Contains(all, want) {
			t.Fatalf("the gateway does not offer %s (server-everything lists it only to a client that declares it): %s", want, all)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "every__get-roots-list", Arguments: map[string]any{}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "file:///client/project") {
		t.Fatalf("get-roots-list: %v %+v\n%s", err, res, stderr.String())
	}
}
