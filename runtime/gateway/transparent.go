package gateway

import (
	"encoding/json"
	"slices"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// A transparent gateway (Options.Transparent) serves the one server behind
// it as that server: a client cannot tell it from the server itself,
// except that every request passes through mcpdeck's runtime (arguments
// checked against the input schema, results bounded, tasks followed).
// `replay --serve` is built on it: the server behind is a recording.
//
// What stays the gateway's: the protocol eras it serves (both, whatever
// the server spoke), one page per list, lists in the catalog's order (tools
// and prompts by name, resources by URI), and the server's own tasks: the
// runtime follows them itself, so neither the 2025-11-25 tasks capability
// nor a tool's execution.taskSupport is offered (the tasks extension is,
// to modern clients, where the server declared it).

// ownIdentity is what a transparent gateway tells clients about itself:
// the served server's.
type ownIdentity struct {
	info         mcp.Implementation
	caps         mcp.ServerCapabilities
	instructions string
	infoMeta     json.RawMessage // {serverInfo}: a modern result's _meta
}

// makeTransparent renames the catalog's tools and prompts to the names
// the one ready server gave them and takes its identity. With no server,
// or several, ready, the catalog stays the gateway's own.
func (c *catalog) makeTransparent(snap *runtime.Snapshot) {
	if len(c.servers) != 1 {
		return
	}
	v, ok := snap.Server(c.servers[0].name)
	if !ok {
		return
	}
	var caps mcp.ServerCapabilities
	if json.Unmarshal(v.Capabilities, &caps) != nil || len(caps.Raw) == 0 {
		caps = gatewayCapabilities
	}
	if caps.LegacyTasks != nil {
		var fields map[string]json.RawMessage
		if json.Unmarshal(caps.Raw, &fields) == nil {
			delete(fields, "tasks")
			caps.Raw, _ = json.Marshal(fields)
		}
		caps.LegacyTasks = nil
	}
	c.own = &ownIdentity{info: v.ServerInfo, caps: caps, instructions: v.Instructions}
	c.own.infoMeta, _ = json.Marshal(map[string]any{mcp.MetaServerInfo: v.ServerInfo})
	c.tools = append([]runtime.Tool(nil), c.tools...)
	for i := range c.tools {
		c.tools[i].Name = c.tools[i].ServerTool
	}
	for i := range c.prompts {
		c.prompts[i].Name = c.prompts[i].Prompt.Name
	}
	slices.SortFunc(c.tools, func(a, b runtime.Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(c.prompts, func(a, b prompt) int { return strings.Compare(a.Name, b.Name) })
	clear(c.toolByName)
	for i := range c.tools {
		c.toolByName[c.tools[i].Name] = &c.tools[i]
	}
	clear(c.promptBy)
	for i := range c.prompts {
		c.promptBy[c.prompts[i].Name] = &c.prompts[i]
	}
}

// offered are what the catalog's clients are told the server offers: the
// served server's own when transparent, else the gateway's (with the
// tasks extension for a modern client, the 2025-11-25 tasks of
// tools/call for a legacy one (legacytasks.go), and the apps extension when a
// server ships apps: capabilities, apps.go).
func (c *catalog) offered(modern bool) mcp.ServerCapabilities {
	switch {
	case c.own != nil:
		return c.own.caps
	case modern:
		return c.capabilities(modernCapabilities)
	}
	return c.capabilities(legacyCapabilities)
}
