package record

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mcpdeck/runtime/schema"
)

// SchemaChanges says how JSON Schema b differs from a, in the schema's
// own terms, one line each, for a person deciding whether a change breaks
// callers:
//
//   - property c (number, required): "Third number"
//   - property b
//     ~ a: type number → string
//     ~ a: now required
//     ~ mode: enum + "fast", - "slow"
//
// Both are read as the schema package models them ($ref followed, allOf
// merged, nullable unions collapsed), so a change that only moves a
// definition is none. It returns nil when the models are alike (keywords
// the model does not read, such as $schema or examples, may still differ;
// the raw differences say where) or a schema cannot be read.
func SchemaChanges(a, b stdjson.RawMessage) []string {
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		return nil
	}
	na, errA := schema.Parse(a)
	nb, errB := schema.Parse(b)
	if errA != nil || errB != nil {
		return nil
	}
	var out []string
	schemaDiff(&out, "", na, nb, 0)
	return out
}

// maxSchemaDiffDepth bounds the walk (the models are bounded already; this
// keeps a self-similar schema's account readable).
const maxSchemaDiffDepth = 16

func schemaDiff(out *[]string, at string, a, b *schema.Node, depth int) {
	if a == nil || b == nil || depth > maxSchemaDiffDepth {
		return
	}
	say := func(format string, args ...any) {
		where := at
		if where == "" {
			where = "(root)"
		}
		*out = append(*out, "~ "+where+": "+fmt.Sprintf(format, args...))
	}
	if ta, tb := typeWords(a), typeWords(b); ta != tb {
		say("type %s → %s", ta, tb)
	}
	for _, f := range []struct {
		name string
		a, b string
	}{
		{"title", a.Title, b.Title},
		{"description", a.Description, b.Description},
		{"format", a.Format, b.Format},
		{"pattern", a.Pattern, b.Pattern},
		{"default", string(a.Default), string(b.Default)},
		{"const", string(a.Const), string(b.Const)},
	} {
		if f.a != f.b {
			say("%s %s → %s", f.name, quoteOrNone(f.a, f.name), quoteOrNone(f.b, f.name))
		}
	}
	if added, removed := enumChange(a.Enum, b.Enum); len(added)+len(removed) > 0 {
		var parts []string
		for _, v := range added {
			parts = append(parts, "+ "+v)
		}
		for _, v := range removed {
			parts = append(parts, "- "+v)
		}
		say("enum %s", strings.Join(parts, ", "))
	}
	for _, bound := range []struct {
		name string
		a, b string
	}{
		{"minimum", floatWord(a.Minimum), floatWord(b.Minimum)},
		{"maximum", floatWord(a.Maximum), floatWord(b.Maximum)},
		{"exclusiveMinimum", floatWord(a.ExclusiveMinimum), floatWord(b.ExclusiveMinimum)},
		{"exclusiveMaximum", floatWord(a.ExclusiveMaximum), floatWord(b.ExclusiveMaximum)},
		{"minLength", intWord(a.MinLength), intWord(b.MinLength)},
		{"maxLength", intWord(a.MaxLength), intWord(b.MaxLength)},
		{"minItems", intWord(a.MinItems), intWord(b.MinItems)},
		{"maxItems", intWord(a.MaxItems), intWord(b.MaxItems)},
	} {
		if bound.a != bound.b {
			say("%s %s → %s", bound.name, bound.a, bound.b)
		}
	}
	if a.NoAdditional != b.NoAdditional {
		if b.NoAdditional {
			say("no longer accepts properties it does not name (additionalProperties: false)")
		} else {
			say("now accepts properties it does not name")
		}
	}
	if a.Opaque != b.Opaque {
		say("not modelled: %s → %s", quoteOrNone(a.Opaque, ""), quoteOrNone(b.Opaque, ""))
	}
	propertiesDiff(out, at, a, b, depth)
	if (a.Items == nil) != (b.Items == nil) {
		say("items %s → %s", presence(a.Items != nil), presence(b.Items != nil))
	}
	schemaDiff(out, join(at, "[]"), a.Items, b.Items, depth+1)
	schemaDiff(out, join(at, "{*}"), a.Additional, b.Additional, depth+1)
	if len(a.Choices) != len(b.Choices) {
		say("%d alternatives → %d", len(a.Choices), len(b.Choices))
	}
	for i := range min(len(a.Choices), len(b.Choices)) {
		schemaDiff(out, fmt.Sprintf("%s(alternative %d)", prefix(at), i+1), a.Choices[i], b.Choices[i], depth+1)
	}
}

// propertiesDiff reports properties added, removed, and changed, by name,
// in b's order then the removed ones in a's.
func propertiesDiff(out *[]string, at string, a, b *schema.Node, depth int) {
	byName := func(n *schema.Node) map[string]*schema.Property {
		m := map[string]*schema.Property{}
		for _, p := range n.Properties {
			m[p.Name] = p
		}
		return m
	}
	pa, pb := byName(a), byName(b)
	for _, p := range b.Properties {
		path := join(at, p.Name)
		old, ok := pa[p.Name]
		if !ok {
			line := "+ property " + path + " (" + typeWords(p.Node)
			if p.Required {
				line += ", required"
			}
			line += ")"
			if p.Description != "" {
				line += ": " + strconv.Quote(p.Description)
			}
			*out = append(*out, line)
			continue
		}
		if old.Required != p.Required {
			word := "now required"
			if !p.Required {
				word = "no longer required"
			}
			*out = append(*out, "~ "+path+": "+word)
		}
		schemaDiff(out, path, old.Node, p.Node, depth+1)
	}
	for _, p := range a.Properties {
		if _, ok := pb[p.Name]; !ok {
			*out = append(*out, "- property "+join(at, p.Name))
		}
	}
}

// typeWords is a node's type as a person reads it: "string", "integer or
// null", "one of 2 shapes", "any".
func typeWords(n *schema.Node) string {
	t := n.Type
	switch {
	case len(n.Choices) > 0:
		t = fmt.Sprintf("one of %d shapes", len(n.Choices))
	case t == "":
		t = "any"
	case t == "array" && n.Items != nil && n.Items.Type != "":
		t = "array of " + n.Items.Type
	}
	if n.Nullable {
		t += " or null"
	}
	return t
}

func enumChange(a, b []stdjson.RawMessage) (added, removed []string) {
	as, bs := compact(a), compact(b)
	for _, v := range bs {
		if !slices.Contains(as, v) {
			added = append(added, v)
		}
	}
	for _, v := range as {
		if !slices.Contains(bs, v) {
			removed = append(removed, v)
		}
	}
	return added, removed
}

func compact(vs []stdjson.RawMessage) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(canonical(v))
	}
	return out
}

func quoteOrNone(s, name string) string {
	switch {
	case s == "":
		return "(none)"
	case name == "default" || name == "const":
		return printable(s) // already JSON
	}
	return printable(strconv.Quote(s))
}

func floatWord(f *float64) string {
	if f == nil {
		return "(none)"
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

func intWord(i *int) string {
	if i == nil {
		return "(none)"
	}
	return strconv.Itoa(*i)
}

func presence(ok bool) string {
	if ok {
		return "described"
	}
	return "(none)"
}

// join names a nested value: a.b, a[], a.{*}.
func join(at, name string) string {
	switch {
	case at == "":
		return name
	case name == "[]":
		return at + "[]"
	}
	return at + "." + name
}

func prefix(at string) string {
	if at == "" {
		return ""
	}
	return at + " "
}
