package ui

import (
	"encoding/json"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/runtime/schema"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// openDetailMsg asks the root model to show a tool's details.
type openDetailMsg struct{ tool runtime.Tool }

// ToolDetailLines renders a tool's details: its names, the whole
// description wrapped, its annotations (hints the server gives, not
// promises), its arguments as the form reads them, the input and output
// schemas (a schema too large to print is named, not printed), and an
// example of arguments built from the input schema. The CLI's `tools SERVER TOOL` prints the
// same text.
func toolDetailLines(st styles.Styles, t runtime.Tool, w int) []string {
	var out []string
	kv := func(k, v string) { out = append(out, st.Label.Render(padRight(k, 13))+v) }
	section := func(title string) {
		h := "── " + title + " "
		out = append(out, "", st.Faint.Render(h+strings.Repeat("─", max(w-len([]rune(h)), 0))))
	}
	kv("tool", present.Line(t.ServerTool))
	if t.Title != "" {
		kv("title", present.Line(t.Title))
	}
	kv("server", present.Line(t.Server))
	kv("called as", present.Line(t.Name))
	if ann := annotationText(t.Annotations); ann != "" {
		kv("annotations", ann)
	}
	section("description")
	if strings.TrimSpace(t.Description) == "" {
		out = append(out, st.Dim.Render("(none)"))
	}
	for _, l := range strings.Split(present.Block(t.Description), "\n") {
		out = append(out, wrap(l, w)...)
	}
	if len(t.Meta) > 0 {
		// What the server attached for hosts (an MCP App's ui.resourceUri
		// and visibility): one line a key, as sent.
		section("_meta")
		out = append(out, metaLines(st, t.Meta, w)...)
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

// openToolDetail shows a tool's details.
func (m *Model) openToolDetail(t runtime.Tool) tea.Cmd {
	st := m.c.st
	m.openModal(newTextViewer(m.c, "Tool "+t.Server+" › "+present.Line(t.ServerTool), "tool", t.Server,
		func(w int) []string { return toolDetailLines(st, t, w) }))
	return nil
}

// ToolDetail is a tool's details as plain text at width columns, for
// `mcpdeck tools SERVER TOOL`: the same text the TUI's detail view shows.
func ToolDetail(t runtime.Tool, width int) string {
	lines := toolDetailLines(styles.Styles{}, t, width)
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
