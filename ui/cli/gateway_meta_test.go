package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaOf reads a go-sdk Meta as the wire had it.
func metaOf(t *testing.T, m mcp.Meta) wireMeta {
	t.Helper()
	var w wireMeta
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("_meta %s: %v", b, err)
	}
	return w
}

// An MCP App behind `mcpdeck gateway`: a TypeScript SDK v2 server (spoken
// to in each era) whose tool and result carry _meta and whose content
// carries annotations, read by the official Go SDK client in each era.
// Everything the server said reaches the client; the client's own _meta
// keys reach the server.
func TestGatewayPassesMetaBothWays(t *testing.T) {
	t.Parallel()
	h := metaServers(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cmd := mcpdeckCmd(t, "--config", h.cfg, "gateway")
			cmd.Env = testEnv(t, h.env...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "meta-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr.String())
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			found := 0
			for _, tl := range tools.Tools {
				if !strings.HasSuffix(tl.Name, "__app") {
					continue
				}
				found++
				m := metaOf(t, tl.Meta)
				if m.UI == nil || m.UI.ResourceURI != "ui://peer/app.html" || len(m.UI.Visibility) != 2 || m.Owner != "peer" {
					t.Errorf("%s: _meta %+v", tl.Name, tl.Meta)
				}
				if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
					t.Errorf("%s: annotations %+v", tl.Name, tl.Annotations)
				}
			}
			if found != 2 {
				t.Fatalf("%d app tools offered, want 2 (modern__app, legacy__app)", found)
			}
			for _, upstream := range []string{"modern", "legacy"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: upstream + "__app", Arguments: map[string]any{},
					Meta: mcp.Meta{"com.example/note": "from " + version, "io.modelcontextprotocol/private": "not forwarded"}})
				if err != nil {
					t.Fatalf("%s__app: %v", upstream, err)
				}
				if m := metaOf(t, res.Meta); m.ViewUUID != "view-0001" {
					t.Errorf("%s__app: result _meta %+v", upstream, res.Meta)
				}
				if _, leaked := res.Meta["io.modelcontextprotocol/serverInfo"]; leaked && version == "2025-11-25" {
					t.Errorf("%s__app: the upstream's serverInfo reached a legacy client: %+v", upstream, res.Meta)
				}
				if len(res.Content) != 1 {
					t.Fatalf("%s__app: content %+v", upstream, res.Content)
				}
				text, ok := res.Content[0].(*mcp.TextContent)
				if !ok || text.Annotations == nil || text.Annotations.Priority != 0.5 || len(text.Annotations.Audience) != 1 || text.Meta["com.example/block"] != 1.0 {
					t.Fatalf("%s__app: block %#v", upstream, res.Content[0])
				}
				// The server answers with the com.example/ keys of the
				// _meta it received.
				var got map[string]string
				if err := json.Unmarshal([]byte(text.Text), &got); err != nil || got["com.example/note"] != "from "+version || len(got) != 1 {
					t.Errorf("%s__app: the server received _meta %s", upstream, text.Text)
				}
			}
			res, err := cs.ListResources(ctx, nil)
			if err != nil || len(res.Resources) == 0 {
				t.Fatalf("resources/list: %v %+v", err, res)
			}
			if m := metaOf(t, res.Resources[0].Meta); m.UI == nil || !m.UI.PrefersBorder {
				t.Errorf("resource _meta %+v", res.Resources[0].Meta)
			}
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://peer/app.html"})
			if err != nil || len(read.Contents) != 1 {
				t.Fatalf("resources/read: %v %+v", err, read)
			}
			if m := metaOf(t, read.Contents[0].Meta); m.UI == nil || !m.UI.PrefersBorder {
				t.Errorf("contents _meta %+v", read.Contents[0].Meta)
			}
			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil || len(prompts.Prompts) != 2 {
				t.Fatalf("prompts/list: %v %+v", err, prompts)
			}
			for _, p := range prompts.Prompts {
				if m := metaOf(t, p.Meta); m.Owner != "peer" {
					t.Errorf("prompt %s _meta %+v", p.Name, p.Meta)
				}
			}
		})
	}
	noProcessMarked(t, h.mark)
}
