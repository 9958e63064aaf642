package gateway

import (
	"encoding/json"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// MCP Apps through the gateway (the io.modelcontextprotocol/ui
// extension). mcpdeck declares the extension to every server, so servers
// that adapt list their app tools; the gateway passes tools' and
// results' _meta.ui as the servers sent them, declares the extension to
// its clients when a server behind it ships apps, and reads ui://
// resources from the server whose tool names them (servers may leave app
// resources out of resources/list). A client that did not declare the
// extension is a model's client, not a host: tools only apps may call
// (visibility ["app"]) are not offered to it. A client that did is a
// host, and its apps call tools by the server's own names: the gateway
// resolves such a name when one server alone has it.

// declaresUI reports whether the client of c declared the extension: in
// initialize (legacy) or in this request's _meta (modern).
func (c *call) declaresUI() bool {
	if c.env != nil {
		return c.env.caps.UI()
	}
	c.cl.mu.Lock()
	defer c.cl.mu.Unlock()
	return c.cl.caps.UI()
}

// offeredTools leaves the app-only tools out for a client that is not an
// apps host.
func offeredTools(c *call, tools []mcp.Tool) []mcp.Tool {
	if c.declaresUI() {
		return tools
	}
	out := tools[:0:0]
	for _, t := range tools {
		if ui, ok := mcp.ToolUIOf(t.Meta); ok && ui.AppOnly() {
			continue
		}
		out = append(out, t)
	}
	return out
}

// capabilities are base (the era's server capabilities) plus, when a
// server behind the gateway declares the apps extension or lists a tool
// with an app, the extension.
func (cat *catalog) capabilities(base mcp.ServerCapabilities) mcp.ServerCapabilities {
	if !cat.apps {
		return base
	}
	ext := make(map[string]json.RawMessage, len(base.Extensions)+1)
	for k, v := range base.Extensions {
		ext[k] = v
	}
	ext[mcp.ExtensionUI] = json.RawMessage(`{}`)
	base.Extensions = ext
	return base
}

// noteApps records, while the catalog is built, the ui:// resources the
// tools name and whether any server ships apps.
func (cat *catalog) noteApps(v runtime.ServerSnapshot) {
	var caps mcp.ServerCapabilities
	if json.Unmarshal(v.Capabilities, &caps) == nil {
		if _, ok := caps.Extensions[mcp.ExtensionUI]; ok {
			cat.apps = true
		}
	}
	for _, t := range v.Tools {
		ui, ok := mcp.ToolUIOf(t.Meta)
		if !ok || ui.ResourceURI == "" {
			continue
		}
		cat.apps = true
		if cat.uiBy == nil {
			cat.uiBy = map[string]string{}
		}
		if _, taken := cat.uiBy[ui.ResourceURI]; !taken {
			cat.uiBy[ui.ResourceURI] = v.Name
		}
	}
}

// appCalled finds the tool an app calls by its server's own name, for a
// client that hosts apps: the one tool of that name, nil when no server
// or more than one has it.
func (cat *catalog) appCalled(name string) *runtime.Tool {
	var found *runtime.Tool
	for i := range cat.tools {
		if cat.tools[i].ServerTool == name {
			if found != nil {
				return nil
			}
			found = &cat.tools[i]
		}
	}
	return found
}

// appOnlyTool reports whether only apps may call t.
func appOnlyTool(t *runtime.Tool) bool {
	ui, ok := mcp.ToolUIOf(t.Meta)
	return ok && ui.AppOnly()
}
