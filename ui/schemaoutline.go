package ui

import (
	"encoding/json"
	"strings"

	"mcpdeck/runtime/schema"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// argumentLines outlines a tool's input schema as the call form reads it
// (runtime/schema's model): one line per field, indented under its object
// or choice, with * for required, its type, and its constraints, default
// and description; lines are cut at w. A schema the model refuses says
// why, as the form does.
func argumentLines(st styles.Styles, raw json.RawMessage, w int) []string {
	n, err := schema.Parse(raw)
	if err != nil {
		return []string{st.Warning.Render(present.Truncate("(too large or deep to outline: "+err.Error()+"; the form edits it as raw JSON)", w))}
	}
	if len(n.Properties) == 0 && len(n.Choices) == 0 {
		return []string{st.Dim.Render("(none)")}
	}
	var out []string
	var walk func(n *schema.Node, depth int)
	line := func(depth int, name string, required bool, n *schema.Node) {
		label := strings.Repeat("  ", depth) + present.Line(name)
		if required {
			label += " *"
		}
		text := padRight(label, max(24, len([]rune(label))+1)) + outlineType(n)
		if extra := outlineExtra(n, name); extra != "" {
			text += st.Dim.Render(" · " + extra)
		}
		out = append(out, present.Truncate(text, w))
	}
	walk = func(n *schema.Node, depth int) {
		for _, p := range n.Properties {
			line(depth, p.Name, p.Required, p.Node)
			walk(p.Node, depth+1)
		}
		if it := n.Items; it != nil && (len(it.Properties) > 0 || len(it.Choices) > 0) {
			line(depth, "[item]", false, it)
			walk(it, depth+1)
		}
		labels := n.ChoiceLabels()
		for i, c := range n.Choices {
			line(depth, "| "+labels[i], false, c)
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// outlineType is a field's type as the outline shows it.
func outlineType(n *schema.Node) string {
	var t string
	switch {
	case n.Opaque != "":
		t = "any JSON (" + n.Opaque + ")"
	case n.Const != nil:
		t = "= " + present.CompactJSON(n.Const)
	case len(n.Enum) > 0:
		var vals []string
		for i, e := range n.Enum {
			v := present.Line(schema.Text(e))
			if i < len(n.EnumTitles) && n.EnumTitles[i] != "" {
				v = present.Line(n.EnumTitles[i]) + " (" + v + ")"
			}
			vals = append(vals, v)
		}
		t = "one of " + strings.Join(vals, ", ")
	case len(n.Choices) > 0:
		t = "one of: " + strings.Join(n.ChoiceLabels(), " | ")
	default:
		t = n.TypeName()
		if n.Type == "object" && n.Ref != "" {
			t += " " + present.Line(schema.RefName(n.Ref))
		}
	}
	if n.Nullable {
		t += " or null"
	}
	return t
}

// outlineExtra is what else a field says: constraints, default, and its
// description, else a title that says more than its name.
func outlineExtra(n *schema.Node, name string) string {
	var parts []string
	if d := n.Describe(); d != "" {
		parts = append(parts, present.Line(d))
	}
	if n.Default != nil {
		parts = append(parts, "default "+present.CompactJSON(n.Default))
	}
	if n.Description != "" {
		parts = append(parts, present.OneLine(n.Description, 120))
	} else if n.Title != "" && n.Ref == "" && !sameWords(n.Title, name) {
		parts = append(parts, present.Line(n.Title))
	}
	return strings.Join(parts, " · ")
}
