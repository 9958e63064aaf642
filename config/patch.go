package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"
)

// The low level of Document: every change is one RFC 6902 operation applied
// by hujson.Value.Patch, which keeps comments and moves the comments of a
// member along with it. Patch does not lay anything out, so each operation
// is followed by a small fix-up of the whitespace around what it inserted
// or removed, copied from the neighbours: the new member is indented as its
// siblings are, the closing brace keeps its line, a file written with
// trailing commas keeps writing them. Nothing else is touched, so bytes
// outside the changed entry stay as they were.

// op is one JSON Patch operation.
type op struct {
	Op    string
	Path  string
	Value json.RawMessage
}

func (d *Document) patch(o op) error {
	// Built by hand: json.Marshal would compact the laid-out value.
	path, err := json.Marshal(o.Path)
	if err != nil {
		return err
	}
	p := fmt.Appendf(nil, `[{"op": %q, "path": %s`, o.Op, path)
	if o.Op != "remove" {
		p = append(append(append(p, `, "value": `...), o.Value...), '}')
	} else {
		p = append(p, '}')
	}
	p = append(p, ']')
	if err := d.root.Patch(p); err != nil {
		return fmt.Errorf("editing %s: %s", o.Path, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	return nil
}

// object returns the object at ptr.
func (d *Document) object(ptr string) (*hujson.Object, error) {
	v := d.root.Find(ptr)
	if v == nil {
		return nil, fmt.Errorf("%s is missing", displayPtr(ptr))
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not an object", displayPtr(ptr), kindName(v.Value.Kind()))
	}
	return obj, nil
}

// insert adds member name with the raw JSON value at the end of the
// object at objPtr.
func (d *Document) insert(objPtr, name string, raw []byte) error {
	obj, err := d.object(objPtr)
	if err != nil {
		return err
	}
	n := len(obj.Members)
	trailingComma := n > 0 && obj.Members[n-1].Value.AfterExtra != nil
	inline := d.inline(objPtr, obj)
	indent, closing := d.indents(objPtr, obj)
	value := d.layout(raw, indent, inline)
	if err := d.patch(op{"add", objPtr + "/" + pointerToken(name), value}); err != nil {
		return err
	}
	obj, _ = d.object(objPtr)
	m := &obj.Members[n]
	// A block comment on the previous member's line stays on that line
	// (hujson moves only line comments along).
	sameLine := cutSameLine(&obj.AfterExtra)
	m.Name.BeforeExtra = placeBefore(append(sameLine, m.Name.BeforeExtra...), indent, inline)
	m.Value.BeforeExtra = hujson.Extra(" ")
	if trailingComma {
		m.Value.AfterExtra = hujson.Extra{}
	}
	if n == 0 && !inline {
		obj.AfterExtra = closeWith(obj.AfterExtra, "\n"+closing)
	}
	return nil
}

// appendElement adds the raw JSON value at the end of the array at ptr.
func (d *Document) appendElement(ptr string, raw []byte) error {
	v := d.root.Find(ptr)
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return fmt.Errorf("%s is not an array", displayPtr(ptr))
	}
	n := len(arr.Elements)
	parent, name := splitPointer(ptr)
	pobj, err := d.object(parent)
	if err != nil {
		return err
	}
	own := memberIndent(pobj, name, d.unit)
	indent := own + d.unit
	inline := false
	if n > 0 {
		indent, inline = lastIndent(arr.Elements[n-1].BeforeExtra)
	}
	trailingComma := n > 0 && arr.Elements[n-1].AfterExtra != nil
	if err := d.patch(op{"add", ptr + "/-", d.layout(raw, indent, inline)}); err != nil {
		return err
	}
	arr = d.root.Find(ptr).Value.(*hujson.Array)
	el := &arr.Elements[n]
	el.BeforeExtra = placeBefore(el.BeforeExtra, indent, inline)
	if trailingComma {
		el.AfterExtra = hujson.Extra{}
	}
	if n == 0 && !inline {
		arr.AfterExtra = closeWith(arr.AfterExtra, "\n"+own)
	}
	return nil
}

// replace sets the value of member name of the object at objPtr.
func (d *Document) replace(objPtr, name string, raw []byte) error {
	obj, err := d.object(objPtr)
	if err != nil {
		return err
	}
	indent, inline := d.unit, false
	for _, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() == name {
			indent, inline = lastIndent(m.Name.BeforeExtra)
		}
	}
	return d.patch(op{"replace", objPtr + "/" + pointerToken(name), d.layout(raw, indent, inline)})
}

// remove deletes member name of the object at objPtr.
func (d *Document) remove(objPtr, name string) error {
	obj, err := d.object(objPtr)
	if err != nil {
		return err
	}
	i := -1
	for j, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() == name {
			i = j
		}
	}
	if i < 0 {
		return fmt.Errorf("%s has no %q", displayPtr(objPtr), name)
	}
	last := i == len(obj.Members)-1
	trailingComma := obj.Members[i].Value.AfterExtra != nil
	closing := trailingSpace(obj.AfterExtra)
	// A block comment on the previous member's line is the previous
	// member's: it stays.
	sameLine := cutSameLine(&obj.Members[i].Name.BeforeExtra)
	if err := d.patch(op{"remove", objPtr + "/" + pointerToken(name), nil}); err != nil {
		return err
	}
	obj, _ = d.object(objPtr)
	if len(sameLine) > 0 {
		next := &obj.AfterExtra
		if i < len(obj.Members) {
			next = &obj.Members[i].Name.BeforeExtra
		}
		*next = append(sameLine, *next...)
	}
	if len(obj.Members) == 0 && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
		obj.AfterExtra = nil // {} rather than a brace on a line of its own
		return nil
	}
	if last {
		obj.AfterExtra = closeWith(obj.AfterExtra, closing)
		if n := len(obj.Members); n > 0 && trailingComma && !d.standard {
			obj.Members[n-1].Value.AfterExtra = hujson.Extra{}
		}
	}
	return nil
}

// inline reports whether the object at ptr is written on one line, so a
// new member goes on that line too. An empty object is laid out over
// lines unless the whole file is one line.
func (d *Document) inline(ptr string, obj *hujson.Object) bool {
	if n := len(obj.Members); n > 0 {
		_, in := lastIndent(obj.Members[n-1].Name.BeforeExtra)
		return in
	}
	return !bytes.Contains(d.root.Pack(), []byte("\n")) && d.exists
}

// indents returns the indentation of the members of the object at ptr and
// of its closing brace: the last member's own when it has one, else one
// level deeper than the member holding the object.
func (d *Document) indents(ptr string, obj *hujson.Object) (member, closing string) {
	if ptr != "" {
		parent, name := splitPointer(ptr)
		if pobj, err := d.object(parent); err == nil {
			closing = memberIndent(pobj, name, d.unit)
		}
	}
	member = closing + d.unit
	if n := len(obj.Members); n > 0 {
		if in, isInline := lastIndent(obj.Members[n-1].Name.BeforeExtra); !isInline {
			member = in
		}
	}
	return member, closing
}

// memberIndent is the indentation of member name of obj, or unit when it
// is not on a line of its own.
func memberIndent(obj *hujson.Object, name, unit string) string {
	for _, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() == name {
			if in, inline := lastIndent(m.Name.BeforeExtra); !inline {
				return in
			}
		}
	}
	return unit
}

// layout formats a value that follows a member name indented by indent.
func (d *Document) layout(raw []byte, indent string, inline bool) json.RawMessage {
	if inline {
		v, err := hujson.Parse(raw)
		if err != nil {
			return raw
		}
		v.Format()
		return bytes.TrimSpace(v.Pack())
	}
	return indentJSON(raw, indent, d.unit)
}

// lastIndent is the whitespace after the last newline of an extra, and
// whether the extra has no newline (the value is on the previous line).
func lastIndent(b hujson.Extra) (string, bool) {
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return "", true
	}
	return string(b[i+1:]), false
}

// placeBefore is the extra before an inserted member or element: what the
// patch moved there (the previous member's trailing comment) on its line,
// then a new line and the indentation, or a space on an inline object.
func placeBefore(moved hujson.Extra, indent string, inline bool) hujson.Extra {
	moved = bytes.TrimRight(moved, " \t")
	if inline {
		if len(moved) > 0 && moved[len(moved)-1] == '\n' {
			return append(moved, indent...)
		}
		return append(moved, ' ')
	}
	if len(moved) == 0 || moved[len(moved)-1] != '\n' {
		moved = append(moved, '\n')
	}
	return append(moved, indent...)
}

// cutSameLine removes from b what it has before its first newline when
// that is a complete comment, and returns it.
func cutSameLine(b *hujson.Extra) hujson.Extra {
	i := bytes.IndexByte(*b, '\n')
	if i < 0 {
		return nil
	}
	first := (*b)[:i]
	if len(bytes.TrimSpace(first)) == 0 || bytes.LastIndex(first, []byte("/*")) > bytes.LastIndex(first, []byte("*/")) {
		return nil
	}
	out := append(hujson.Extra{}, first...)
	*b = append(hujson.Extra{}, (*b)[i:]...)
	return out
}

// trailingSpace is the whitespace that ends an extra (after its last
// comment): the layout of the closing brace.
func trailingSpace(b hujson.Extra) string {
	end := len(b)
	for end > 0 && strings.IndexByte(" \t\r\n", b[end-1]) >= 0 {
		end--
	}
	return string(b[end:])
}

// closeWith replaces the whitespace that ends an extra by closing, keeping
// its comments (a line comment keeps its newline).
func closeWith(b hujson.Extra, closing string) hujson.Extra {
	body := bytes.TrimRight(b, " \t\r\n")
	if i := bytes.LastIndexByte(body, '\n'); bytes.Contains(body[i+1:], []byte("//")) && !strings.HasPrefix(closing, "\n") {
		closing = "\n" + closing
	}
	return append(append(hujson.Extra{}, body...), closing...)
}

// indentUnit is one level of the file's indentation: the leading
// whitespace of its first indented line, else two spaces.
func indentUnit(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(trimmed) == 0 || trimmed[0] != '"' {
			continue
		}
		return string(line[:len(line)-len(trimmed)])
	}
	return "  "
}

// pointerToken escapes one JSON Pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// PointerToken escapes s as one token of a JSON Pointer (RFC 6901), for
// DocOptions.Container.
func PointerToken(s string) string { return pointerToken(s) }

// splitPointer splits a pointer into its parent and its last token,
// unescaped.
func splitPointer(ptr string) (string, string) {
	i := strings.LastIndexByte(ptr, '/')
	tok := strings.ReplaceAll(strings.ReplaceAll(ptr[i+1:], "~1", "/"), "~0", "~")
	return ptr[:i], tok
}

// displayPtr names a pointer in messages.
func displayPtr(ptr string) string {
	if ptr == "" {
		return "the top level"
	}
	return fmt.Sprintf("%q", ptr)
}

// jsonEqual reports whether two JSON values are the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
