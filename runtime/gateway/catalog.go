package gateway

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// catalog is everything the gateway offers, built from one runtime
// publication: immutable, swapped whole, read without locks. Per-client
// policy filters it on the way out.
type catalog struct {
	generation uint64
	enabled    bool
	tools      []runtime.Tool           // sorted by bridged name
	toolByName map[string]*runtime.Tool // bridged name → tool
	prompts    []prompt                 // sorted by bridged name
	promptBy   map[string]*prompt
	resources  []runtime.Resource // sorted by URI
	resourceBy map[string]string  // URI → server (the first server by name, when two list it)
	templates  []template
	servers    []serverInfo      // ready servers, by name
	uiBy       map[string]string // MCP Apps: a ui:// URI a tool names → its server (apps.go)
	apps       bool              // a server declares the apps extension or lists an app
}

// prompt is a server's prompt under its bridged name.
type prompt struct {
	Name string // server__prompt
	runtime.Prompt
}

// template is a server's resource template with its compiled matcher.
type template struct {
	runtime.ResourceTemplate
	match *regexp.Regexp // nil when the template cannot be compiled
}

// serverInfo is what the catalog keeps of a ready server.
type serverInfo struct {
	name         string
	implName     string
	instructions string
	subscribe    bool // resources.subscribe declared
	completions  bool
}

// newCatalog builds the catalog of a publication.
func newCatalog(snap *runtime.Snapshot) *catalog {
	c := &catalog{generation: snap.Generation, enabled: snap.Enabled, tools: snap.Tools,
		toolByName: make(map[string]*runtime.Tool, len(snap.Tools)), promptBy: map[string]*prompt{}, resourceBy: map[string]string{}}
	for i := range c.tools {
		c.toolByName[c.tools[i].Name] = &c.tools[i]
	}
	promptNames := map[string][]string{}
	for _, v := range snap.Servers {
		if !v.State.Live() {
			continue
		}
		var caps mcp.ServerCapabilities
		_ = json.Unmarshal(v.Capabilities, &caps)
		c.servers = append(c.servers, serverInfo{name: v.Name, implName: v.ServerInfo.Name, instructions: v.Instructions,
			subscribe: caps.Resources != nil && caps.Resources.Subscribe, completions: caps.Completions != nil})
		c.noteApps(v)
		for _, p := range v.Prompts {
			promptNames[v.Name] = append(promptNames[v.Name], p.Name)
		}
		for _, r := range v.Resources {
			r.Server = v.Name
			c.resources = append(c.resources, r)
			if _, taken := c.resourceBy[r.URI]; !taken {
				c.resourceBy[r.URI] = v.Name
			}
		}
		for _, t := range v.Templates {
			t.Server = v.Name
			c.templates = append(c.templates, template{ResourceTemplate: t, match: compileTemplate(t.URITemplate)})
		}
	}
	bridged := runtime.BridgeNames(promptNames)
	for _, v := range snap.Servers {
		if !v.State.Live() {
			continue
		}
		for _, p := range v.Prompts {
			p.Server = v.Name
			c.prompts = append(c.prompts, prompt{Name: bridged[[2]string{v.Name, p.Name}], Prompt: p})
		}
	}
	sort.Slice(c.prompts, func(i, j int) bool { return c.prompts[i].Name < c.prompts[j].Name })
	for i := range c.prompts {
		c.promptBy[c.prompts[i].Name] = &c.prompts[i]
	}
	sort.SliceStable(c.resources, func(i, j int) bool { return c.resources[i].URI < c.resources[j].URI })
	return c
}

// server returns the ready server called name.
func (c *catalog) server(name string) (serverInfo, bool) {
	for _, s := range c.servers {
		if s.name == name {
			return s, true
		}
	}
	return serverInfo{}, false
}

// resourceServer finds the server a resource URI belongs to: the server
// that lists it, else the server with a template it matches; allowed
// filters the candidates (the client's policy).
func (c *catalog) resourceServer(uri string, allowed func(server string) bool) (string, bool) {
	if s, ok := c.resourceBy[uri]; ok && allowed(s) {
		return s, true
	}
	for _, r := range c.resources {
		if r.URI == uri && allowed(r.Server) {
			return r.Server, true
		}
	}
	for _, t := range c.templates {
		if t.match != nil && t.match.MatchString(uri) && allowed(t.Server) {
			return t.Server, true
		}
	}
	if s, ok := c.uiBy[uri]; ok && allowed(s) { // an app's resource, named by a tool only
		return s, true
	}
	return "", false
}

// templateServer finds the server of a resource template (completion refs
// name templates by their URI template).
func (c *catalog) templateServer(uriTemplate string, allowed func(string) bool) (string, bool) {
	for _, t := range c.templates {
		if t.URITemplate == uriTemplate && allowed(t.Server) {
			return t.Server, true
		}
	}
	return "", false
}

// compileTemplate turns an RFC 6570 URI template into a matcher for the
// URIs it expands to: {var} matches one path segment, {+var} and {#var}
// anything, the other operators anything without a slash. It is a
// router, not a validator: the owning server checks the URI itself.
func compileTemplate(t string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			return nil
		}
		b.WriteString(regexp.QuoteMeta(t[:open]))
		expr := t[open+1 : open+end]
		switch {
		case strings.HasPrefix(expr, "+"), strings.HasPrefix(expr, "#"):
			b.WriteString(".*")
		case strings.HasPrefix(expr, "?"), strings.HasPrefix(expr, "&"):
			b.WriteString(`[^#]*`)
		default:
			b.WriteString(`[^/?#]*`)
		}
		t = t[open+end+1:]
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}
