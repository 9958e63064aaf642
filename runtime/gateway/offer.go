package gateway

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// emptySchema stands in for a tool that declared no input schema: clients
// require an object schema.
var emptySchema = json.RawMessage(`{"type":"object"}`)

// The lists below are what the servers said, under the bridged names:
// _meta, annotations and icons pass through as each server sent them, so
// a host behind the gateway sees an MCP App's ui.resourceUri and
// visibility as if it spoke to the server itself.

// toolsFor lists the tools p allows, leaving out those the operator
// switched off and those whose definition changed since it was approved
// (runtime.Tool.Offered): a client never sees them, and a change of either
// is a change of the list (list_changed).
func (cat *catalog) toolsFor(p *policy) []mcp.Tool {
	out := make([]mcp.Tool, 0, len(cat.tools))
	for _, t := range cat.tools {
		if !t.Offered() {
			continue
		}
		if ok, _ := p.tool(t.Server, t.Name); !ok {
			continue
		}
		w := t.Wire(t.Name)
		if len(w.InputSchema) == 0 {
			w.InputSchema = emptySchema
		}
		if t.TaskSupport == "optional" || t.TaskSupport == "required" {
			// The gateway runs any call as a task for a client that asks
			// (tasks.go), and a required one without: optional.
			w.Execution = &mcp.ToolExecution{TaskSupport: "optional"}
		}
		out = append(out, w)
	}
	return out
}

func (cat *catalog) promptsFor(p *policy) []mcp.Prompt {
	out := make([]mcp.Prompt, 0, len(cat.prompts))
	for _, pr := range cat.prompts {
		if ok, _ := p.prompt(pr.Server, pr.Name); !ok {
			continue
		}
		w := pr.Prompt.Prompt
		w.Name = pr.Name
		out = append(out, w)
	}
	return out
}

func (cat *catalog) resourcesFor(p *policy) []mcp.Resource {
	out := make([]mcp.Resource, 0, len(cat.resources))
	for _, r := range cat.resources {
		if p.allows(r.Server) {
			out = append(out, r.Resource)
		}
	}
	return out
}

func (cat *catalog) templatesFor(p *policy) []mcp.ResourceTemplate {
	out := make([]mcp.ResourceTemplate, 0, len(cat.templates))
	for _, t := range cat.templates {
		if p.allows(t.Server) {
			out = append(out, t.ResourceTemplate.ResourceTemplate)
		}
	}
	return out
}

// instructions composes the servers' instructions for a client: what the
// gateway is, then each server the client may reach with what it said.
func (cat *catalog) instructions(p *policy) string {
	if cat.own != nil {
		return cat.own.instructions
	}
	var b strings.Builder
	var names []string
	for _, s := range cat.servers {
		if p.allows(s.name) {
			names = append(names, s.name)
		}
	}
	if !cat.enabled {
		return "mcpdeck's gateway: MCP is switched off in mcpdeck, so nothing is offered now; the lists change when it is switched on."
	}
	fmt.Fprintf(&b, "mcpdeck's gateway serves %d MCP server(s) at once: %s. Tool and prompt names are server__name; resources keep their URIs.",
		len(names), strings.Join(names, ", "))
	for _, s := range cat.servers {
		if !p.allows(s.name) || strings.TrimSpace(s.instructions) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\n## %s", s.name)
		if s.implName != "" && s.implName != s.name {
			fmt.Fprintf(&b, " (%s)", s.implName)
		}
		b.WriteString("\n\n")
		b.WriteString(strings.TrimSpace(s.instructions))
	}
	return b.String()
}

// offer fingerprints what a client was shown, per list kind, so a
// publication announces only the lists that changed for that client.
type offer struct{ tools, prompts, resources uint64 }

func fingerprint(v ...any) uint64 {
	h := fnv.New64a()
	enc := json.NewEncoder(h)
	for _, x := range v {
		_ = enc.Encode(x)
	}
	return h.Sum64()
}

func (g *Gateway) offerFor(p *policy, cat *catalog) offer {
	return offer{
		tools:     fingerprint(cat.toolsFor(p)),
		prompts:   fingerprint(cat.promptsFor(p)),
		resources: fingerprint(cat.resourcesFor(p), cat.templatesFor(p)),
	}
}

// republish takes a new publication: the catalog is swapped, and every
// client whose view changed is told which lists did.
func (g *Gateway) republish(snap *runtime.Snapshot) {
	// A request may have brought the catalog up to date already (refresh):
	// the clients are told against the newest one either way.
	g.store(g.newCatalog(snap))
	cat := g.catalog()
	for _, cl := range g.clientList() {
		now := g.offerFor(cl.policy(), cat)
		cl.mu.Lock()
		old := cl.offered
		cl.offered = now
		cl.mu.Unlock()
		if now.tools != old.tools {
			cl.listChanged("tools")
		}
		if now.prompts != old.prompts {
			cl.listChanged("prompts")
		}
		if now.resources != old.resources {
			cl.listChanged("resources")
		}
	}
}

// listChanged tells a client that one of its lists changed: a
// list_changed notification to an initialized legacy client, and one on
// every listen stream of a modern client that opted in to it.
func (cl *client) listChanged(kind string) {
	method := "notifications/" + kind + "/list_changed"
	if _, legacy := cl.legacySession(); legacy {
		cl.notify(method, nil)
	}
	cl.mu.Lock()
	listens := append([]*listen(nil), cl.listens...)
	cl.mu.Unlock()
	for _, l := range listens {
		if l.wants(kind) {
			l.send(method, map[string]any{})
		}
	}
}
