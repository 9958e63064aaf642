package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// metaServers is an mcp.json with the TypeScript SDK v2 peer twice, one
// spoken to in each era: its app tool carries an MCP App's _meta.
func metaServers(t *testing.T) *headless {
	t.Helper()
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	srv := func(protocol string) map[string]any {
		e := map[string]string{}
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && k == jsonrpctest.EnvNodeModules {
				e[k] = v
			}
		}
		return map[string]any{"command": path, "args": args, "env": e, "protocol": protocol}
	}
	return newHeadless(t, map[string]map[string]any{"modern": srv("modern"), "legacy": srv("legacy")})
}

// decodeJSON reads a command's --json output.
func decodeJSON(t *testing.T, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("--json printed invalid JSON: %v\n%s", err, r.stdout)
	}
}

// wireMeta is the part of a _meta an MCP App host reads.
type wireMeta struct {
	UI *struct {
		ResourceURI   string   `json:"resourceUri"`
		Visibility    []string `json:"visibility"`
		PrefersBorder bool     `json:"prefersBorder"`
	} `json:"ui"`
	ViewUUID string `json:"viewUUID"`
	Owner    string `json:"com.example/owner"`
	Block    int    `json:"com.example/block"`
}

// --json stays faithful: a tool's _meta (MCP Apps' ui.resourceUri and
// visibility), a result's _meta (viewUUID), each content block's
// annotations and _meta, a resource's and a prompt's _meta, as the server
// sent them, in both eras.
func TestJSONKeepsMeta(t *testing.T) {
	h := metaServers(t)
	var tools struct {
		Tools []struct {
			Server, Tool string
			Meta         *wireMeta      `json:"_meta"`
			Annotations  map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	r := h.run(t, "", "tools", "modern", "legacy", "--json")
	wantCode(t, r, ExitOK)
	decodeJSON(t, r, &tools)
	apps := 0
	for _, tl := range tools.Tools {
		if tl.Tool != "app" {
			continue
		}
		apps++
		if tl.Meta == nil || tl.Meta.UI == nil || tl.Meta.UI.ResourceURI != "ui://peer/app.html" || len(tl.Meta.UI.Visibility) != 2 || tl.Meta.Owner != "peer" {
			t.Errorf("tools --json: %s's app tool has _meta %+v", tl.Server, tl.Meta)
		}
		if len(tl.Annotations) != 1 || tl.Annotations["readOnlyHint"] != true {
			t.Errorf("tools --json: %s's app tool has annotations %v", tl.Server, tl.Annotations)
		}
	}
	if apps != 2 {
		t.Fatalf("tools --json: %d app tools, want one per server:\n%s", apps, r.stdout)
	}
	for _, server := range []string{"modern", "legacy"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			r := h.run(t, "", "tools", server, "app", "--json")
			wantCode(t, r, ExitOK)
			var one struct {
				Meta *wireMeta `json:"_meta"`
			}
			decodeJSON(t, r, &one)
			if one.Meta == nil || one.Meta.UI == nil || one.Meta.UI.ResourceURI != "ui://peer/app.html" {
				t.Errorf("tools %s app --json: _meta %+v\n%s", server, one.Meta, r.stdout)
			}

			r = h.run(t, "", "call", server, "app", "--json")
			wantCode(t, r, ExitOK)
			var res struct {
				Meta    *wireMeta `json:"_meta"`
				Content []struct {
					Type        string
					Text        string
					Annotations *struct {
						Audience []string
						Priority float64
					} `json:"annotations"`
					Meta *wireMeta `json:"_meta"`
				} `json:"content"`
			}
			decodeJSON(t, r, &res)
			if res.Meta == nil || res.Meta.ViewUUID != "view-0001" {
				t.Errorf("call --json: result _meta %+v\n%s", res.Meta, r.stdout)
			}
			if len(res.Content) != 1 || res.Content[0].Annotations == nil || res.Content[0].Annotations.Priority != 0.5 ||
				len(res.Content[0].Annotations.Audience) != 1 || res.Content[0].Meta == nil || res.Content[0].Meta.Block != 1 {
				t.Errorf("call --json: content %+v\n%s", res.Content, r.stdout)
			}

			r = h.run(t, "", "read", server, "ui://peer/app.html", "--json")
			wantCode(t, r, ExitOK)
			var read struct {
				Contents []struct {
					Meta *wireMeta `json:"_meta"`
				} `json:"contents"`
			}
			decodeJSON(t, r, &read)
			if len(read.Contents) != 1 || read.Contents[0].Meta == nil || read.Contents[0].Meta.UI == nil || !read.Contents[0].Meta.UI.PrefersBorder {
				t.Errorf("read --json: %s", r.stdout)
			}

			for _, list := range [][]string{{"prompts"}, {"resources"}} {
				r = h.run(t, "", append(list, server, "--json")...)
				wantCode(t, r, ExitOK)
				var items map[string][]struct {
					Name string
					Meta *wireMeta `json:"_meta"`
				}
				decodeJSON(t, r, &items)
				got := items[list[0]]
				if len(got) != 1 || got[0].Meta == nil || (got[0].Meta.Owner != "peer" && (got[0].Meta.UI == nil || !got[0].Meta.UI.PrefersBorder)) {
					t.Errorf("%s --json: %s", list[0], r.stdout)
				}
			}
		})
	}
}

// server-everything's annotated message: each block's annotations (who it
// is for, how much it matters) are in call --json.
func TestCallJSONKeepsAnnotations(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	r := h.run(t, "", "call", "everything", "get-annotated-message", `{"messageType":"error","includeImage":true}`, "--json")
	wantCode(t, r, ExitOK)
	var res struct {
		Content []struct {
			Type        string
			Annotations map[string]any `json:"annotations"`
		} `json:"content"`
	}
	decodeJSON(t, r, &res)
	if len(res.Content) != 2 || res.Content[0].Annotations["priority"] != 1.0 || res.Content[1].Type != "image" || res.Content[1].Annotations["priority"] != 0.5 {
		t.Fatalf("call --json: %s", r.stdout)
	}
}
