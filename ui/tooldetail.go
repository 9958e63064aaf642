package ui

import (
	"encoding/json"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/schema"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// openDetailMsg asks the root model to show a tool's details.
type openDetailMsg struct{ tool runtime.Tool }

// appDetail is what the detail view knows of a tool's MCP App resource,
// read from the server (the CSP and permissions live on the resource).
type appDetail struct {
	done bool // the read ended, well or not
	doc  mcp.AppDocument
	err  string
	cli  bool // shown by mcpdeck tools SERVER TOOL, where no key opens it
}

// appDetailMsg is the end of the read of a detail view's app resource.
type appDetailMsg struct {
	into *appDetail
	doc  mcp.AppDocument
	err  error
}

// ToolDetailLines renders a tool's details: its names, the whole
// description wrapped, its annotations (hints the server gives, not
// promises), its arguments as the form reads them, the input and output
// schemas (a schema too large to print is named, not printed), and an
// example of arguments built from the input schema. The CLI's `tools SERVER TOOL` prints the
// same text.
func toolDetailLines(st styles.Styles, t runtime.Tool, app *appDetail, w int) []string {
	var out []string
	kv := func(k, v string) { out = append(out, st.Label.Render(padRight(k, 13))+v) }
	section := func(title string) {
		h := "── " + title + " "
		out = append(out, "", st.Faint.Render(h+strings.Repeat("─", max(w-len([]rune(h)), 0))))
	}
	kv("tool", present.Line(t.ServerTool))
	if t.Title != "" {
		kv("title", present.ShowHidden(present.Line(t.Title)))
	}
	kv("server", present.Line(t.Server))
	kv("called as", present.Line(t.Name))
	if ann := annotationText(t.Annotations); ann != "" {
		kv("annotations", ann)
	}
	kv("cost", present.ToolCost(t.Cost)+" of an agent's context when listed (tokens estimated as bytes/4)")
	if t.Disabled {
		kv("switch", st.Warning.Render("off")+": calls are refused and the gateway does not offer it (space on the Tools tab, or mcpdeck tools enable "+
			present.Line(t.Server+" "+t.ServerTool)+")")
	}
	if t.Changed != nil {
		section("changed since approved")
		out = append(out, changeLines(st, t, w)...)
	}
	section("description")
	if strings.TrimSpace(t.Description) == "" {
		out = append(out, st.Dim.Render("(none)"))
	}
	for _, l := range strings.Split(present.ShowHidden(present.Block(t.Description)), "\n") {
		out = append(out, wrap(l, w)...)
	}
	if ui, ok := mcp.ToolUIOf(t.Meta); ok {
		section("MCP App")
		out = append(out, appLines(st, t, ui, app, w)...)
	}
	if len(t.Meta) > 0 {
		// What the server attached for hosts (an MCP App's ui.resourceUri
		// and visibility): one line a key, as sent.
		section("_meta")
		out = append(out, metaLines(st, t.Meta, w)...)
	}
	if serr := t.InputSchemaError(); serr != nil {
		section("input schema is not valid JSON Schema")
		out = append(out, warnLines(st, "calls are refused until the server fixes its schema; ctrl+t in the form (call --no-validate) calls without checking", w)...)
		for _, l := range serr.Lines() {
			out = append(out, wrap(present.Line(l), w)...)
		}
	}
	section("arguments")
	out = append(out, argumentLines(st, t.InputSchema, w)...)
	section("input schema")
	out = append(out, schemaLines(st, orEmpty(t.InputSchema))...)
	section("example arguments (required fields, defaults, first choices)")
	out = append(out, strings.Split(present.PrettyJSON(schema.Example(t.InputSchema)), "\n")...)
	section("output schema")
	if len(t.OutputSchema) == 0 {
		out = append(out, st.Dim.Render("(none: results are not checked)"))
	} else {
		out = append(out, schemaLines(st, t.OutputSchema)...)
	}
	return out
}

// changeLines say how a tool differs from what the operator approved:
// why it is withheld, what in its new description reads as instructions
// to the model, and a word-level diff of each member that changed, the
// removed words as [-…-] and the added ones as {+…+}, in colour too.
func changeLines(st styles.Styles, t runtime.Tool, w int) []string {
	ch := t.Changed
	var out []string
	accept := "; the gateway withholds it until accepted (a on the Tools tab, or mcpdeck tools accept " + present.Line(t.Server+" "+t.ServerTool) + ")"
	switch {
	case ch.Kind == runtime.ChangeShadows:
		out = append(out, wrap(st.Warning.Render("added after the server was first listed, taking the name of a tool of server "+
			present.Line(ch.Shadows))+accept, w)...)
	default:
		when := ""
		if !ch.PinnedAt.IsZero() {
			when = " on " + ch.PinnedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		what := "its definition"
		if len(ch.Fields) > 0 {
			what = strings.Join(ch.Fields, ", ")
		}
		out = append(out, wrap(st.Warning.Render(what+" differs from what was approved"+when)+accept, w)...)
	}
	if len(ch.InstructionLike) > 0 {
		out = append(out, wrap(st.Error.Render("reads as instructions to the model: ")+present.ShowHidden(present.Line(strings.Join(ch.InstructionLike, "; "))), w)...)
	}
	if ch.Kind == runtime.ChangeShadows {
		return out
	}
	if ch.Pinned == nil {
		return append(out, st.Dim.Render("(the approved definition was over 64 KiB and only its hash was kept: no diff)"))
	}
	for _, fd := range runtime.DefinitionDiff(*ch.Pinned, t.Definition()) {
		out = append(out, "", st.Label.Render(fd.Field+":"))
		var b strings.Builder
		for _, p := range fd.Parts {
			text := present.ShowHidden(present.Block(p.Text))
			switch p.Op {
			case runtime.DiffRemoved:
				b.WriteString(styleLines(st.Error, "[-"+text+"-]"))
			case runtime.DiffAdded:
				b.WriteString(styleLines(st.Success, "{+"+text+"+}"))
			default:
				b.WriteString(text)
			}
		}
		for _, l := range strings.Split(b.String(), "\n") {
			out = append(out, wrap(l, w)...)
		}
	}
	return out
}

// styleLines styles each line of text on its own, so a style never spans
// a line break (where a wrap would cut it).
func styleLines(style lipgloss.Style, text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = style.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// schemaLines is a schema indented, or why it is not shown: a hostile
// schema would indent to hundreds of megabytes (schema.Omitted).
func schemaLines(st styles.Styles, raw json.RawMessage) []string {
	if why := schema.Omitted(raw); why != "" {
		return []string{st.Warning.Render("(not shown: " + present.Size(len(raw)) + ", " + why + "; `mcpdeck tools --json` prints a marker in its place)")}
	}
	return strings.Split(present.PrettyJSON(raw), "\n")
}

// annotationText is a tool's annotations on one line: the hints set to
// true by name, the others as key=value.
func annotationText(raw json.RawMessage) string {
	var ann map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &ann) != nil || len(ann) == 0 {
		return ""
	}
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		switch v := ann[k].(type) {
		case bool:
			if v {
				parts = append(parts, k)
			} else {
				parts = append(parts, k+"=false")
			}
		default:
			enc, _ := json.Marshal(v)
			parts = append(parts, k+"="+string(enc))
		}
	}
	return present.Line(strings.Join(parts, ", "))
}

// metaLines shows a _meta (or annotations) object compactly: one line a
// member, its key then its value as compact JSON, cut to w columns;
// anything but an object on one line. Every byte is sanitised: it is the
// server's text.
func metaLines(st styles.Styles, raw json.RawMessage, w int) []string {
	members := present.Members(raw)
	if members == nil {
		return []string{present.Truncate(present.CompactJSON(raw), w)}
	}
	keyMax := min(max(w/3, 12), 40) // io.modelcontextprotocol/serverInfo fits a wide view
	width := 0
	for _, m := range members {
		width = max(width, min(len([]rune(m.Key)), keyMax))
	}
	out := make([]string, 0, len(members))
	for _, m := range members {
		key := present.Truncate(m.Key, keyMax)
		out = append(out, st.Label.Render(padRight(key, width+2))+present.Truncate(m.Value, max(w-width-2, 8)))
	}
	return out
}

// appLines are the detail of a tool's app: its resource, who may call the
// tool, and the resource's CSP and permissions once read.
func appLines(st styles.Styles, t runtime.Tool, ui mcp.ToolUI, app *appDetail, w int) []string {
	var out []string
	kv := func(k, v string) { out = append(out, st.Label.Render(padRight(k, 13))+v) }
	if ui.ResourceURI != "" {
		kv("resource", present.Line(ui.ResourceURI))
	} else {
		kv("resource", st.Dim.Render("(none: no view of its own)"))
	}
	who := "models and the server's apps may call it"
	switch {
	case ui.AppOnly():
		who = "app-only: models never see it; only the server's apps call it"
	case !ui.AppCallable():
		who = "models only: apps may not call it"
	}
	kv("visibility", present.Line(ui.VisibilityText())+": "+who)
	for _, p := range append(append([]string(nil), ui.Problems...), ui.Notes...) {
		out = append(out, warnLines(st, p, w)...)
	}
	if ui.ResourceURI == "" {
		return out
	}
	switch {
	case app == nil || !app.done:
		kv("CSP", st.Dim.Render("(reading the resource…)"))
	case app.err != "":
		kv("resource", st.Error.Render("not readable: "+present.Line(app.err)))
	default:
		r := app.doc.UI
		kv("document", present.Line(app.doc.MIMEType)+", "+present.Size(len(app.doc.HTML)))
		kv("CSP", cspText(r.CSP))
		perms := "none asked for"
		if len(r.Permissions) > 0 {
			perms = strings.Join(r.Permissions, ", ")
		}
		kv("permissions", perms)
		if r.Domain != "" {
			kv("domain", present.Line(r.Domain)+" (host-specific; mcpdeck serves every app on its own loopback origin)")
		}
		for _, p := range append(append([]string(nil), r.Problems...), r.Notes...) {
			out = append(out, warnLines(st, p, w)...)
		}
	}
	command := "mcpdeck app open " + present.Line(t.Server) + " " + present.Line(t.ServerTool)
	if app != nil && app.cli {
		kv("open", command+" (in the TUI: call the tool, then press a in its result)")
	} else {
		kv("open", "call the tool, then press "+"a"+" in its result (or: "+command+")")
	}
	return out
}

// warnLines are a problem of the server's, wrapped, then styled.
func warnLines(st styles.Styles, p string, w int) []string {
	lines := wrap("! "+present.Line(p), w)
	for i, l := range lines {
		lines[i] = st.Warning.Render(l)
	}
	return lines
}

// cspText is a resource's declared CSP on one line: each list's origins,
// or the restrictive default when it declares none.
func cspText(c mcp.AppCSP) string {
	if c.Empty() {
		return "none declared: no network, no external resources, no frames (the restrictive default)"
	}
	var parts []string
	for _, l := range []struct {
		name string
		list []string
	}{{"connect", c.ConnectDomains}, {"resources", c.ResourceDomains}, {"frames", c.FrameDomains}, {"base-uri", c.BaseURIDomains}} {
		if len(l.list) > 0 {
			parts = append(parts, l.name+": "+strings.Join(l.list, " "))
		}
	}
	return present.Line(strings.Join(parts, " · "))
}

// openToolDetail shows a tool's details; a tool with an app reads its
// resource for the CSP and permissions, which fill in when it answers.
func (m *Model) openToolDetail(t runtime.Tool) tea.Cmd {
	st := m.c.st
	app := &appDetail{}
	m.openModal(newTextViewer(m.c, "Tool "+t.Server+" › "+present.Line(t.ServerTool), "tool", t.Server,
		func(w int) []string { return toolDetailLines(st, t, app, w) }))
	ui, _ := mcp.ToolUIOf(t.Meta)
	if ui.ResourceURI == "" {
		return nil
	}
	rt, ctx := m.rt, m.ctx()
	return func() tea.Msg {
		raw, err := rt.ReadResource(ctx, t.Server, ui.ResourceURI)
		if err != nil {
			return appDetailMsg{into: app, err: err}
		}
		doc, err := mcp.AppDocumentOf(raw, ui.ResourceURI)
		return appDetailMsg{into: app, doc: doc, err: err}
	}
}

// showAppDetail fills in a detail view's app resource.
func (m *Model) showAppDetail(msg appDetailMsg) {
	msg.into.done, msg.into.doc = true, msg.doc
	if msg.err != nil {
		msg.into.err = msg.err.Error()
	}
	if v, ok := m.modal.(*textViewer); ok {
		m.sizeModal(v) // render again, with the app's lines
	}
}

// ToolDetail is a tool's details as plain text at width columns, for
// `mcpdeck tools SERVER TOOL`: the same text the TUI's detail view shows.
// doc and readErr are the read of its app resource, when it has one.
func ToolDetail(t runtime.Tool, doc *mcp.AppDocument, readErr error, width int) string {
	app := &appDetail{done: true, cli: true}
	switch {
	case readErr != nil:
		app.err = readErr.Error()
	case doc != nil:
		app.doc = *doc
	}
	lines := toolDetailLines(styles.Styles{}, t, app, width)
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
