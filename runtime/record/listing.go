package record

import (
	stdjson "encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Comparing by name: what a server offers is four lists — tools, prompts,
// resources and resource templates — whose order means nothing. Compared
// by position, a tool inserted at the top shows as a difference in every
// field of every tool after it; compared by name (URI for resources, URI
// template for templates), it shows as one tool added. Both `mcpdeck diff`
// and the lists of `replay --against` compare this way: each list becomes
// an object keyed by name, and the paths of differences name the item
// (/tools/get-sum/inputSchema/properties/a/type) instead of its index.

// ListKind is one of the four lists a server offers.
type ListKind struct {
	Kind   string // "tool", "prompt", "resource", "template": for people
	Method string // the list request
	Field  string // the result's member holding the list
	Key    string // the member naming an item
}

// ListKinds are the four lists, in the order they are reported.
var ListKinds = []ListKind{
	{"tool", "tools/list", "tools", "name"},
	{"prompt", "prompts/list", "prompts", "name"},
	{"resource", "resources/list", "resources", "uri"},
	{"template", "resources/templates/list", "resourceTemplates", "uriTemplate"},
}

// listKindOf returns the list a method or a result's member is.
func listKindOf(methodOrField string) (ListKind, bool) {
	for _, k := range ListKinds {
		if k.Method == methodOrField || k.Field == methodOrField {
			return k, true
		}
	}
	return ListKind{}, false
}

// Listing is what a server offers, as its list requests answered (every
// page): each item as the server sent it.
type Listing struct {
	// Lists holds each kind's items by ListKind.Field.
	Lists map[string][]stdjson.RawMessage
}

// PageOf reads one page of a list request's result: its items and the
// cursor of the next page ("" at the end).
func PageOf(k ListKind, result stdjson.RawMessage) (items []stdjson.RawMessage, next string, err error) {
	var page map[string]stdjson.RawMessage
	if err := stdjson.Unmarshal(result, &page); err != nil {
		return nil, "", fmt.Errorf("the result is not an object: %w", err)
	}
	if raw := page[k.Field]; len(raw) > 0 && string(raw) != "null" {
		if err := stdjson.Unmarshal(raw, &items); err != nil {
			return nil, "", fmt.Errorf("%q is not a list: %w", k.Field, err)
		}
	}
	if raw := page["nextCursor"]; len(raw) > 0 && string(raw) != "null" {
		if err := stdjson.Unmarshal(raw, &next); err != nil {
			return nil, "", fmt.Errorf("nextCursor is not a string: %w", err)
		}
	}
	return items, next, nil
}

// keyed turns a list into an object keyed by each item's name; an item
// that repeats a name (a server's mistake) is keyed "name#2", "name#3".
func keyed(k ListKind, items []any) map[string]any {
	out := make(map[string]any, len(items))
	for i, it := range items {
		m, _ := it.(map[string]any)
		name, _ := m[k.Key].(string)
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		key := name
		for n := 2; out[key] != nil; n++ {
			key = fmt.Sprintf("%s#%d", name, n)
		}
		out[key] = it
	}
	return out
}

// document is a listing as one object keyed by list and name, the shape
// its differences' paths and --ignore paths address.
func (l Listing) document() (map[string]any, error) {
	doc := map[string]any{}
	for _, k := range ListKinds {
		var items []any
		for _, raw := range l.Lists[k.Field] {
			var v any
			if err := decodeNumbers(raw, &v); err != nil {
				return nil, fmt.Errorf("decoding a %s: %w", k.Kind, err)
			}
			items = append(items, v)
		}
		doc[k.Field] = keyed(k, items)
	}
	return doc, nil
}

// ItemChange is one tool, prompt, resource or template that differs
// between two listings.
type ItemChange struct {
	Kind   string             `json:"kind"`   // tool, prompt, resource, template
	Name   string             `json:"name"`   // its name or URI
	Change string             `json:"change"` // added, removed, changed
	A      stdjson.RawMessage `json:"a,omitempty"`
	B      stdjson.RawMessage `json:"b,omitempty"`
	// Fields are the members that changed (description, inputSchema,
	// annotations, _meta, ...), for a changed item.
	Fields []FieldChange `json:"fields,omitempty"`
}

// FieldChange is one member of an item that differs.
type FieldChange struct {
	Field string `json:"field"`
	// Schema is a readable account of a changed inputSchema or
	// outputSchema ("+ property c (number, required)"); empty for other
	// members, or when the schemas differ only where the account does not
	// look (Differences then say where).
	Schema []string `json:"schema,omitempty"`
	// Differences are the JSON values that differ, at pointers relative
	// to the field.
	Differences []Difference `json:"differences"`
}

// ListingDiff is the comparison of two listings.
type ListingDiff struct {
	Changes []ItemChange `json:"changes"`
	// Same counts, per list (ListKind.Field), the items found alike.
	Same map[string]int `json:"same"`
}

// CompareListings compares two listings by name. ignore leaves paths out,
// as Compare does, relative to {"tools": {NAME: tool}, "prompts": …,
// "resources": {URI: …}, "resourceTemplates": {URI_TEMPLATE: …}}:
// tools.*.annotations, /resources/*/_meta.
func CompareListings(a, b Listing, ignore []string) (ListingDiff, error) {
	da, err := a.document()
	if err != nil {
		return ListingDiff{}, fmt.Errorf("the first listing: %w", err)
	}
	db, err := b.document()
	if err != nil {
		return ListingDiff{}, fmt.Errorf("the second listing: %w", err)
	}
	var diffs []Difference
	diff(nil, any(da), any(db), parsePaths(ignore), &diffs)
	out := ListingDiff{Same: map[string]int{}}
	byItem := map[[2]string]int{} // list and name → index in out.Changes
	for _, d := range diffs {
		segs := ParsePath(d.Path)
		if len(segs) < 2 {
			continue
		}
		id := [2]string{segs[0], segs[1]}
		i, seen := byItem[id]
		if !seen {
			k, _ := listKindOf(segs[0])
			ia, inA := da[segs[0]].(map[string]any)[segs[1]]
			ib, inB := db[segs[0]].(map[string]any)[segs[1]]
			c := ItemChange{Kind: k.Kind, Name: segs[1], Change: "changed", A: rawOf(ia, inA), B: rawOf(ib, inB)}
			switch {
			case !inA:
				c.Change = "added"
			case !inB:
				c.Change = "removed"
			}
			i = len(out.Changes)
			byItem[id] = i
			out.Changes = append(out.Changes, c)
		}
		c := &out.Changes[i]
		if c.Change != "changed" || len(segs) < 3 {
			continue
		}
		rel := Difference{Path: pointer(segs[3:]), Recorded: d.Recorded, Live: d.Live}
		if n := len(c.Fields); n > 0 && c.Fields[n-1].Field == segs[2] {
			c.Fields[n-1].Differences = append(c.Fields[n-1].Differences, rel)
		} else {
			c.Fields = append(c.Fields, FieldChange{Field: segs[2], Differences: []Difference{rel}})
		}
	}
	for i := range out.Changes {
		c := &out.Changes[i]
		for j := range c.Fields {
			f := &c.Fields[j]
			if f.Field == "inputSchema" || f.Field == "outputSchema" {
				f.Schema = SchemaChanges(fieldOf(c.A, f.Field), fieldOf(c.B, f.Field))
			}
		}
	}
	slices.SortStableFunc(out.Changes, func(x, y ItemChange) int {
		return kindIndex(x.Kind) - kindIndex(y.Kind)
	})
	for _, k := range ListKinds {
		changed := 0
		for _, c := range out.Changes {
			if c.Kind == k.Kind && c.Change == "changed" {
				changed++
			}
		}
		n := len(da[k.Field].(map[string]any))
		out.Same[k.Field] = n - changed - countChange(out.Changes, k.Kind, "removed")
	}
	return out, nil
}

func countChange(cs []ItemChange, kind, change string) int {
	n := 0
	for _, c := range cs {
		if c.Kind == kind && c.Change == change {
			n++
		}
	}
	return n
}

// Count is how many items of kind changed so.
func (d ListingDiff) Count(kind, change string) int { return countChange(d.Changes, kind, change) }

func kindIndex(kind string) int {
	return slices.IndexFunc(ListKinds, func(k ListKind) bool { return k.Kind == kind })
}

func rawOf(v any, present bool) stdjson.RawMessage {
	if !present {
		return nil
	}
	b, _ := stdjson.Marshal(v)
	return b
}

func fieldOf(item stdjson.RawMessage, field string) stdjson.RawMessage {
	var m map[string]stdjson.RawMessage
	_ = stdjson.Unmarshal(item, &m)
	return m[field]
}

func parsePaths(paths []string) [][]string {
	var out [][]string
	for _, p := range paths {
		out = append(out, ParsePath(p))
	}
	return out
}

// keyedAnswer rewrites the list in a list request's answer
// ({"result": {"tools": [...]}}) as an object keyed by name, so a
// comparison of two answers pairs items by name, not position.
func keyedAnswer(method string, answer any) any {
	k, ok := listKindOf(method)
	if !ok {
		return answer
	}
	a, _ := answer.(map[string]any)
	res, _ := a["result"].(map[string]any)
	items, ok := res[k.Field].([]any)
	if !ok {
		return answer
	}
	res[k.Field] = keyed(k, items)
	return answer
}

// String is the change on one line: "+ tool get-sum", "~ prompt greet".
func (c ItemChange) String() string {
	sign := map[string]string{"added": "+", "removed": "-", "changed": "~"}[c.Change]
	return strings.TrimSpace(sign + " " + c.Kind + " " + printable(c.Name))
}
