package suite

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"mcpdeck/runtime/record"

	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// Paths in expectations, snapshots' ignore lists and variables are RFC 9535
// JSONPath queries (github.com/theory/jsonpath) over a step's result
// document as JSON: $.content[0].text, $.tools[?@.name=='echo'],
// $..timestamp. A singular query ($.a.b[0]) names one value; any other
// (wildcards, filters, descendants) names the list of what it selects.

// query parses a path that the parser already checked.
func query(path string) (*jsonpath.Path, error) {
	p, err := jsonpath.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("%q is not a JSONPath query: %w", path, err)
	}
	return p, nil
}

// selectAt returns what path names in doc: for a singular query the one
// value (found reports whether it exists), otherwise the list of every
// selected value (found when it is not empty).
func selectAt(path string, doc any) (v any, found bool, err error) {
	p, err := query(path)
	if err != nil {
		return nil, false, err
	}
	nodes := p.Select(doc)
	if p.Query().Singular() != nil {
		if len(nodes) == 0 {
			return nil, false, nil
		}
		return nodes[0], true, nil
	}
	list := []any(nodes)
	if list == nil {
		list = []any{}
	}
	return list, len(list) > 0, nil
}

// selectOne is selectAt for a path that must name exactly one value.
func selectOne(path string, doc any) (any, error) {
	p, err := query(path)
	if err != nil {
		return nil, err
	}
	nodes := p.Select(doc)
	switch len(nodes) {
	case 0:
		return nil, fmt.Errorf("selects nothing")
	case 1:
		return nodes[0], nil
	}
	return nil, fmt.Errorf("selects %d values, not one", len(nodes))
}

// ignorePaths replaces every value the paths select in doc (a copy) with
// the marker "<ignored>", so a snapshot shows the field without its
// unstable value.
func ignorePaths(doc any, paths []string) (any, error) {
	out := clone(doc)
	for _, path := range paths {
		p, err := query(path)
		if err != nil {
			return nil, err
		}
		located := p.SelectLocated(out)
		located.Sort()
		for _, n := range located {
			out = replaceAt(out, n.Path, ignoredMarker)
		}
	}
	return out, nil
}

// ignoreMirrors carries what the ignores left out of a call's
// structuredContent over to the text blocks that hold it as JSON (as the
// specification asks, and FastMCP and the Go SDK write): in ignored (doc
// with the ignores applied) such a block becomes record.MirrorMarker when
// the ignores changed structuredContent, so that ignoring
// $.structuredContent.issued does not leave the same timestamp failing
// the snapshot in $.content[0].text. The block is still compared: one
// that stops holding structuredContent differs from the marker. Without
// an ignore in structuredContent the block is kept as it came.
func ignoreMirrors(doc, ignored any) any {
	d, _ := doc.(map[string]any)
	ig, _ := ignored.(map[string]any)
	if d == nil || ig == nil || reflect.DeepEqual(d["structuredContent"], ig["structuredContent"]) {
		return ignored
	}
	content, _ := ig["content"].([]any)
	for _, i := range record.StructuredMirrors(doc) {
		if i >= len(content) {
			break // the ignores replaced the whole content
		}
		if block, ok := content[i].(map[string]any); ok && block["text"] != ignoredMarker {
			block["text"] = record.MirrorMarker
		}
	}
	return ignored
}

// ignoredMarker stands in a snapshot for a value left out of it.
const ignoredMarker = "<ignored>"

func replaceAt(doc any, path spec.NormalizedPath, v any) any {
	if len(path) == 0 {
		return v
	}
	switch sel := path[0].(type) {
	case spec.Name:
		if m, ok := doc.(map[string]any); ok {
			if cur, ok := m[string(sel)]; ok {
				m[string(sel)] = replaceAt(cur, path[1:], v)
			}
		}
	case spec.Index:
		if a, ok := doc.([]any); ok && int(sel) >= 0 && int(sel) < len(a) {
			a[int(sel)] = replaceAt(a[int(sel)], path[1:], v)
		}
	}
	return doc
}

func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = clone(e)
		}
		return a
	}
	return v
}

// decodeJSON reads JSON into the data model paths work on.
func decodeJSON(raw []byte) (any, error) {
	var v any
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// toDoc turns any JSON-marshalable value into the data model.
func toDoc(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, _ := decodeJSON(b)
	return out
}

// equalJSON compares two values of the data model; numbers compare by
// value.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !equalJSON(e, f) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	}
	return a == b
}

// compact writes a value as compact JSON for messages.
func compact(v any) string { return encode(v, "") }

// pretty writes a value as indented JSON with sorted keys, the form
// snapshots and diffs use.
func pretty(v any) string { return encode(v, "  ") }

// encode writes JSON without escaping <, > and & (these are for people).
func encode(v any, indent string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}
