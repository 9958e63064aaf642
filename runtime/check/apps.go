package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// The items of MCP Apps (the io.modelcontextprotocol/ui extension),
// checked when the server lists a tool that says anything of apps in its
// _meta. They verify what a host will rely on.
const (
	IDAppResources = "app-resources"
	IDAppMetadata  = "app-metadata"
	IDAppOnlyTools = "app-only-tools"
	IDAppExtension = "app-extension"
)

// appItems are the apps items' names, in report order.
var appItems = itemList{
	{IDAppResources, "MCP Apps: every resourceUri reads as an app"},
	{IDAppMetadata, "MCP Apps: _meta.ui, CSP and permissions well-formed"},
	{IDAppOnlyTools, "MCP Apps: app-only tools stay out of model flows"},
	{IDAppExtension, "MCP Apps: the server declares the extension"},
}

// AppIDs returns the ids of the items checked on servers with MCP Apps,
// in report order; they come last.
func AppIDs() []string { return appItems.ids() }

// appTool is a listed tool with what its _meta says of apps.
type appTool struct {
	name string
	ui   mcp.ToolUI
	tool runtime.Tool
}

// appRead is what resources/read gave for one resourceUri.
type appRead struct {
	doc mcp.AppDocument
	err error
}

// appOnly reports whether only apps may call t.
func appOnly(t runtime.Tool) bool {
	ui, ok := mcp.ToolUIOf(t.Meta)
	return ok && ui.AppOnly()
}

// appTools are the listed tools that say anything of apps, by name.
func (c *checker) appTools() []appTool {
	var out []appTool
	for _, t := range c.tools {
		if ui, ok := mcp.ToolUIOf(t.Meta); ok {
			out = append(out, appTool{name: t.ServerTool, ui: ui, tool: t})
		}
	}
	return out
}

// probeApps reads every resourceUri the tools name, while the server is
// up; the items judge what came back once it has stopped.
func (c *checker) probeApps() {
	c.appCaps = c.server().Capabilities
	for _, t := range c.appTools() {
		uri := t.ui.ResourceURI
		if uri == "" || !strings.HasPrefix(uri, mcp.AppScheme) {
			continue
		}
		if _, done := c.appReads[uri]; done {
			continue
		}
		if c.appReads == nil {
			c.appReads = map[string]appRead{}
		}
		raw, err := c.rt.ReadResource(c.ctx, c.name, uri)
		var r appRead
		if err != nil {
			r.err = err
		} else {
			r.doc, r.err = mcp.AppDocumentOf(raw, uri)
		}
		c.appReads[uri] = r
	}
}

// appSteps decides the apps items, after every other item, when the
// server has app tools.
func (c *checker) appSteps() {
	if c.prerequisite() != "" || len(c.appTools()) == 0 {
		return
	}
	c.step(IDAppResources, c.appResources)
	c.step(IDAppMetadata, c.appMetadata)
	c.step(IDAppOnlyTools, c.appOnlyTools)
	c.step(IDAppExtension, c.appExtension)
}

// appResources: every resourceUri reads, as text/html;profile=mcp-app
// HTML of a bounded size.
func (c *checker) appResources() (Status, string) {
	var fails, warns []string
	largest, apps := 0, 0
	for _, t := range c.appTools() {
		uri := t.ui.ResourceURI
		if uri == "" {
			continue // an app-only tool need not have a view of its own
		}
		if !strings.HasPrefix(uri, mcp.AppScheme) {
			fails = append(fails, fmt.Sprintf("tool %q: resourceUri %q is not a %s URI", t.name, uri, mcp.AppScheme))
			continue
		}
		r, probed := c.appReads[uri]
		switch {
		case !probed:
			fails = append(fails, fmt.Sprintf("tool %q: %s was not read: the server was not up to ask", t.name, uri))
			continue
		case r.err != nil && !errors.Is(r.err, mcp.ErrNotApp):
			fails = append(fails, fmt.Sprintf("tool %q: resources/read of its resourceUri %s failed: %s: serve the resource the tool names (hosts read it before they show the result)", t.name, uri, oneLine(errText(r.err), 160)))
			continue
		case r.err != nil:
			fails = append(fails, fmt.Sprintf("tool %q: %s", t.name, strings.TrimPrefix(r.err.Error(), mcp.ErrNotApp.Error()+": ")))
			continue
		}
		apps++
		n := len(r.doc.HTML)
		largest = max(largest, n)
		switch {
		case n > mcp.AppHTMLMax:
			fails = append(fails, fmt.Sprintf("tool %q: %s is %s of HTML, over the maximum of %s: load the rest from a declared resourceDomain", t.name, uri, size(n), size(mcp.AppHTMLMax)))
		case n > mcp.AppHTMLWarn:
			warns = append(warns, fmt.Sprintf("tool %q: %s is %s of HTML, over %s: every view loads it whole", t.name, uri, size(n), size(mcp.AppHTMLWarn)))
		}
		if head := bytes.ToLower(bytes.TrimSpace(r.doc.HTML[:min(len(r.doc.HTML), 1024)])); !bytes.Contains(head, []byte("<!doctype html")) && !bytes.Contains(head, []byte("<html")) {
			warns = append(warns, fmt.Sprintf("tool %q: %s does not start as an HTML document (<!DOCTYPE html> or <html>): the extension asks for a valid HTML5 document", t.name, uri))
		}
	}
	if st, why, found := verdict(fails, warns); found {
		return st, why
	}
	if apps == 0 {
		return Pass, "no tool names a resourceUri (app-only tools only)"
	}
	return Pass, fmt.Sprintf("%s read as %s (largest %s; WARN over %s, FAIL over %s)",
		count(apps, "app resource", "app resources"), mcp.AppMIMEType, size(largest), size(mcp.AppHTMLWarn), size(mcp.AppHTMLMax))
}

// appMetadata: the tools' _meta.ui and the resources' CSP and
// permissions are what the extension defines, every origin an origin.
func (c *checker) appMetadata() (Status, string) {
	var fails, warns []string
	seen := map[string]bool{}
	for _, t := range c.appTools() {
		for _, p := range t.ui.Problems {
			fails = append(fails, fmt.Sprintf("tool %q: %s", t.name, p))
		}
		for _, p := range t.ui.Notes {
			warns = append(warns, fmt.Sprintf("tool %q: %s", t.name, p))
		}
		uri := t.ui.ResourceURI
		r, ok := c.appReads[uri]
		if !ok || r.err != nil || seen[uri] {
			continue
		}
		seen[uri] = true
		for _, p := range r.doc.UI.Problems {
			fails = append(fails, fmt.Sprintf("tool %q: %s: %s", t.name, uri, p))
		}
		for _, p := range r.doc.UI.Notes {
			warns = append(warns, fmt.Sprintf("tool %q: %s: %s", t.name, uri, p))
		}
	}
	if st, why, found := verdict(fails, warns); found {
		return st, why
	}
	return Pass, fmt.Sprintf("the _meta.ui of %s and of %s are well-formed", count(len(c.appTools()), "tool", "tools"), count(len(seen), "resource", "resources"))
}

// appOnlyTools: a tool only apps may call must not be what a model is
// told to use, and some app must be there to call it.
func (c *checker) appOnlyTools() (Status, string) {
	var only []string
	for _, t := range c.appTools() {
		if t.ui.AppOnly() {
			only = append(only, t.name)
		}
	}
	if len(only) == 0 {
		return Pass, "no tool is app-only: every tool is a model's too"
	}
	var fails []string
	withApp := 0
	for _, t := range c.tools {
		ui, _ := mcp.ToolUIOf(t.Meta)
		if !ui.ModelVisible() {
			continue
		}
		if ui.HasApp() {
			withApp++
		}
		text := t.Description + " " + t.Title + " " + string(t.InputSchema)
		for _, name := range only {
			if regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_-])`).MatchString(text) {
				fails = append(fails, fmt.Sprintf("tool %q, which a model sees, names app-only tool %q in its description or schema: a model never sees %q and cannot call it; leave it to the app, or make it visible to the model", t.ServerTool, name, name))
			}
		}
	}
	if withApp == 0 {
		fails = append(fails, fmt.Sprintf("app-only %s %s, but no tool a model sees has an app (_meta.ui.resourceUri): no view is ever opened to call them", plural(len(only), "tool", "tools"), strings.Join(only, ", ")))
	}
	if len(fails) > 0 {
		return Fail, strings.Join(fails, "; ")
	}
	return Pass, fmt.Sprintf("app-only %s %s: no model-visible tool names them; %s a model calls open an app that can", plural(len(only), "tool", "tools"), strings.Join(only, ", "), count(withApp, "tool", "tools"))
}

// appExtension: the server declares io.modelcontextprotocol/ui under
// capabilities.extensions. The extension's 2026-01-26 revision asks only
// hosts to declare it, so its absence warns rather than fails.
func (c *checker) appExtension() (Status, string) {
	var caps mcp.ServerCapabilities
	_ = json.Unmarshal(c.appCaps, &caps)
	if raw, ok := caps.Extensions[mcp.ExtensionUI]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Pass, fmt.Sprintf("capabilities.extensions declares %s", mcp.ExtensionUI)
	}
	return Warn, fmt.Sprintf("the server lists app tools but its capabilities.extensions does not declare %q: declare it (with {}) so clients and registries can tell it ships apps before they list tools (MCP extensions, SEP-2133; the apps revision 2026-01-26 requires it of hosts only)", mcp.ExtensionUI)
}
