package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// form edits a JSON object described by a JSON Schema: one field per
// property, or a raw JSON editor for what the fields cannot express. It
// validates on every edit with the runtime's validator, so the errors the
// person sees are the ones the runtime would refuse the call with.
type form struct {
	c       *common
	schema  json.RawMessage
	roots   []*field // the top-level properties, each the root of its subtree
	fields  []*field // roots flattened: one row each
	focus   int      // index into fields, always a focusable one
	rootErr []string
	raw     bool
	editor  textarea.Model
	rawErr  string

	// Set by setSize: the body's width, the rows the raw editor may take
	// at most, and the label and input columns of the fields.
	w, maxRows     int
	labelW, inputW int
}

// newForm builds the fields and fills them from prefill (the arguments
// last used) or else from the schema's defaults.
func newForm(c *common, schema json.RawMessage, prefill json.RawMessage) *form {
	f := &form{c: c, schema: schema, editor: newEditor(c.st)}
	var root schemaNode
	if len(schema) > 0 && json.Unmarshal(schema, &root) == nil {
		f.roots = objectChildren(&root, nil, 0)
	}
	f.reflow()
	var args map[string]any
	if len(prefill) > 0 && json.Unmarshal(prefill, &args) == nil {
		f.fill(args)
	} else {
		for _, fl := range f.fields {
			var d any
			if len(fl.def) > 0 && json.Unmarshal(fl.def, &d) == nil {
				fl.set(d, f.newInput)
			}
		}
		f.reflow()
	}
	f.setFocus(f.nextFocusable(-1, 1))
	if len(f.fields) == 0 || f.focus < 0 {
		// Nothing the form can show: start in the raw editor.
		f.focus = 0
		if len(f.fields) == 0 && !emptyObjectSchema(schema) {
			f.raw = true
			start := prefill
			if len(start) == 0 {
				start = present.Skeleton(schema)
			}
			setEditorText(&f.editor, present.PrettyJSON(start))
		}
	}
	f.validate()
	return f
}

// setFocus moves the focus to field i: only the focused input takes keys
// and shows a cursor.
func (f *form) setFocus(i int) {
	f.focus = i
	for j, fl := range f.fields {
		if j == i {
			fl.in.Focus()
		} else {
			fl.in.Blur()
		}
	}
}

// setSize lays the form out in w columns, the raw editor in at most
// maxRows rows (its heading and one error line included).
func (f *form) setSize(w, maxRows int) {
	f.w, f.maxRows = w, maxRows
	f.labelW = 4
	for _, fl := range f.fields {
		f.labelW = max(f.labelW, 2*fl.depth+len(fl.name())+1)
	}
	f.labelW = min(f.labelW, w/3)
	const typeW = 9
	f.inputW = min(max(w-f.labelW-typeW-6, 8), 56)
	for _, fl := range f.fields {
		setLineWidth(&fl.in, f.inputW)
	}
	f.editor.SetWidth(max(w, 10))
	f.sizeEditor()
}

// sizeEditor lets the raw editor grow with its text (one row to spare
// for the next line typed) up to the room the modal has.
func (f *form) sizeEditor() {
	room := max(f.maxRows-2, 3) // the heading and an error line
	f.editor.SetHeight(min(max(editorRows(f.editor.Value(), f.editor.Width())+1, 3), room))
}

func emptyObjectSchema(schema json.RawMessage) bool {
	var n schemaNode
	return json.Unmarshal(schema, &n) == nil && n.typeName() == "object" && len(orderedProperties(n.Properties)) == 0
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

func (f *form) fill(args map[string]any) {
	for _, fl := range f.roots {
		fl.set(args[fl.key], f.newInput)
	}
	f.reflow()
}

// newInput is a field's text input.
func (f *form) newInput() textinput.Model { return newLineInput(f.c.st) }

// reflow lists the fields again after items came or went, giving new
// fields their inputs and keeping the focus on the same field.
func (f *form) reflow() {
	var focused *field
	if f.focus >= 0 && f.focus < len(f.fields) {
		focused = f.fields[f.focus]
	}
	f.fields = flatten(f.roots)
	for _, fl := range f.fields {
		if !fl.hasInput {
			fl.in, fl.hasInput = f.newInput(), true
		}
	}
	f.focus = -1
	for i, fl := range f.fields {
		if fl == focused {
			f.focus = i
		}
	}
	if f.focus < 0 {
		f.focus = f.nextFocusable(-1, 1)
	}
	if f.w > 0 {
		f.setSize(f.w, f.maxRows)
	}
}

func (f *form) nextFocusable(from, dir int) int {
	for i := from + dir; i >= 0 && i < len(f.fields); i += dir {
		if f.fields[i].focusable() {
			return i
		}
	}
	return -1
}

// args builds the arguments object; local reports text that could not be
// converted (those fields carry their own error).
func (f *form) args() (args json.RawMessage, local bool) {
	if f.raw {
		text := strings.TrimSpace(f.editor.Value())
		if text == "" {
			text = "{}"
		}
		return json.RawMessage(text), !json.Valid([]byte(text))
	}
	root := map[string]any{}
	for _, fl := range f.fields {
		fl.errs = fl.errs[:0]
		if fl.container() {
			continue
		}
		if _, _, problem := fl.value(); problem != "" {
			fl.errs = append(fl.errs, problem)
			local = true
		}
	}
	for _, fl := range f.roots {
		if v, set, _ := fl.value(); set {
			root[fl.key] = v
		}
	}
	enc, _ := json.Marshal(root)
	return enc, local
}

// validate refreshes every error shown: conversion problems from the
// fields, schema violations from the runtime's validator.
func (f *form) validate() (ok bool) {
	f.rootErr, f.rawErr = nil, ""
	args, local := f.args()
	if f.raw && local {
		f.rawErr = "not valid JSON yet"
		return false
	}
	errs, err := runtime.ValidateArguments(f.schema, args)
	if err != nil {
		f.rootErr = append(f.rootErr, "the tool's schema is invalid, arguments are not checked: "+err.Error())
		return !local
	}
	for _, fe := range errs {
		f.attach(fe)
	}
	return !local && len(errs) == 0
}

// attach shows a schema violation on its field: at the pointer's field,
// at the named missing property, or above the form.
func (f *form) attach(fe runtime.FieldError) {
	if f.raw {
		f.rootErr = append(f.rootErr, fe.String())
		return
	}
	if strings.HasPrefix(fe.Message, "missing propert") {
		attached := false
		for _, m := range missingRe.FindAllStringSubmatch(fe.Message, -1) {
			if fl := f.byPointer(fe.Path + "/" + m[1]); fl != nil {
				fl.errs = append(fl.errs, "required")
				attached = true
			}
		}
		if attached {
			return
		}
	}
	if fl := f.byPointer(fe.Path); fl != nil && fe.Path != "" {
		fl.errs = append(fl.errs, fe.Message)
		return
	}
	// An array item or deeper: the closest field that contains it.
	for p := fe.Path; p != ""; p = p[:strings.LastIndex(p, "/")] {
		if fl := f.byPointer(p); fl != nil {
			fl.errs = append(fl.errs, strings.TrimPrefix(fe.Path, p)+": "+fe.Message)
			return
		}
	}
	f.rootErr = append(f.rootErr, fe.String())
}

func (f *form) byPointer(p string) *field {
	for _, fl := range f.fields {
		if fl.pointer() == p {
			return fl
		}
	}
	return nil
}

// anyValue reports whether any field that is not a heading has a value.
func (f *form) anyValue() bool {
	for _, fl := range f.fields {
		if fl.container() {
			continue
		}
		if _, set, _ := fl.value(); set {
			return true
		}
	}
	return false
}

// addItem adds an item to the array field fl and lists it.
func (f *form) addItem(fl *field) *field {
	it := fl.addItem()
	if it != nil {
		f.reflow()
	}
	return it
}

// indexOf is fl's row.
func (f *form) indexOf(fl *field) int {
	for i, x := range f.fields {
		if x == fl {
			return i
		}
	}
	return -1
}

// help is the form's keys for the focused field.
func (f *form) help() []key.Binding {
	k := f.c.keys
	if f.raw || f.focus < 0 || f.focus >= len(f.fields) {
		return nil
	}
	switch f.fields[f.focus].kind {
	case kindArray, kindObjArray:
		return []key.Binding{k.AddItem, keysRelabel(k.RemoveItem, "remove the last item")}
	case kindItem:
		return []key.Binding{k.RemoveItem}
	}
	return nil
}

// errorCount is how many problems the form shows.
func (f *form) errorCount() int {
	n := len(f.rootErr)
	if f.rawErr != "" {
		n++
	}
	if !f.raw {
		for _, fl := range f.fields {
			n += len(fl.errs)
		}
	}
	return n
}

// toggleRaw switches between the fields and the raw JSON editor, carrying
// the arguments across.
func (f *form) toggleRaw() {
	if !f.raw {
		args, _ := f.args()
		if !f.anyValue() {
			// Nothing typed yet: start from what the schema asks for.
			args = present.Skeleton(f.schema)
		}
		setEditorText(&f.editor, present.PrettyJSON(args))
		f.sizeEditor()
		f.raw = true
	} else {
		var args map[string]any
		if err := json.Unmarshal([]byte(f.editor.Value()), &args); err != nil {
			f.rawErr = "fix the JSON to go back to the form: " + err.Error()
			return
		}
		f.fill(args)
		f.raw = false
	}
	f.validate()
}

// update edits on a key; it reports whether the key was used.
func (f *form) update(msg tea.KeyMsg) bool {
	k := f.c.keys
	if key.Matches(msg, k.RawJSON) {
		f.toggleRaw()
		return true
	}
	if f.raw {
		// Sized before the key, so the editor scrolls to its cursor
		// within the height it is drawn at.
		f.sizeEditor()
		if editText(&f.editor, msg) {
			f.sizeEditor()
			f.validate()
		}
		return true
	}
	if len(f.fields) == 0 || f.focus < 0 {
		return false
	}
	fl := f.fields[f.focus]
	switch {
	case key.Matches(msg, k.NextField):
		if n := f.nextFocusable(f.focus, 1); n >= 0 {
			f.setFocus(n)
		}
		return true
	case key.Matches(msg, k.PrevField):
		if n := f.nextFocusable(f.focus, -1); n >= 0 {
			f.setFocus(n)
		}
		return true
	}
	changed := false
	switch fl.kind {
	case kindArray, kindObjArray:
		switch {
		case key.Matches(msg, k.AddItem):
			if it := f.addItem(fl); it != nil {
				from := f.indexOf(it) - 1
				if it.kind == kindItem {
					from++ // onto the item's first field, past its heading
				}
				f.setFocus(f.nextFocusable(from, 1))
				changed = true
			}
		case key.Matches(msg, k.RemoveItem) && len(fl.children) > 0:
			fl.removeItem(fl.children[len(fl.children)-1])
			f.reflow()
			changed = true
		}
	case kindItem:
		if key.Matches(msg, k.RemoveItem) {
			parent := fl.parent
			parent.removeItem(fl)
			f.reflow()
			f.setFocus(f.indexOf(parent))
			changed = true
		}
	case kindBool:
		switch {
		case key.Matches(msg, k.Toggle):
			fl.cycleBool(1)
			changed = true
		case key.Matches(msg, k.PrevChoice):
			fl.cycleBool(-1)
			changed = true
		}
	case kindEnum:
		n := len(fl.enum)
		switch {
		case key.Matches(msg, k.Toggle):
			fl.choice = (fl.choice+2)%(n+1) - 1
			changed = true
		case key.Matches(msg, k.PrevChoice):
			fl.choice = (fl.choice+n+1)%(n+1) - 1
			changed = true
		}
	default:
		changed = editLine(&fl.in, msg)
	}
	if changed {
		f.validate()
	}
	return true
}

// lines draws the form body at the width setSize gave: one line per
// field, the focused field's description under it and every error under
// its field. focusLine is the line to keep in view.
func (f *form) lines() (lines []string, focusLine int) {
	st := f.c.st
	w := f.w
	if f.raw {
		lines = append(lines, st.Dim.Render("raw JSON arguments (ctrl+e: back to the form)"))
		lines = append(lines, strings.Split(f.editor.View(), "\n")...)
		// The editor keeps its own cursor in view: show all of it.
		focusLine = len(lines) - 1
		if f.rawErr != "" {
			lines = append(lines, st.Error.Render("✗ "+f.rawErr))
		}
		for _, e := range f.rootErr {
			lines = append(lines, st.Error.Render("✗ "+present.Line(e)))
		}
		return lines, focusLine
	}
	for _, e := range f.rootErr {
		lines = append(lines, st.Error.Render("✗ "+present.Line(e)))
	}
	if len(f.fields) == 0 {
		lines = append(lines, st.Dim.Render("This tool takes no arguments."))
	}
	labelW := f.labelW
	for i, fl := range f.fields {
		focused := i == f.focus
		marker := "  "
		if focused {
			marker = "› "
		}
		label := strings.Repeat("  ", fl.depth) + present.Line(fl.name())
		req := " "
		if fl.required {
			req = "*"
		}
		ls := st.Label
		if focused {
			ls = st.LabelFocus
			focusLine = len(lines)
		}
		head := marker + ls.Render(padRight(label, labelW-1)) + st.Required.Render(req) + " "
		var widget string
		switch fl.kind {
		case kindObject:
			widget = st.Dim.Render("{")
		case kindArray, kindObjArray:
			widget = st.Dim.Render("[" + present.Count(len(fl.children), "item", "items") + "]")
			if focused {
				widget += st.Faint.Render("  + adds an item, - removes the last")
			}
		case kindItem:
			widget = st.Dim.Render("{")
			if focused {
				widget += st.Faint.Render("  - removes this item")
			}
		case kindBool:
			widget = boolWidget(fl.boolVal)
			switch {
			case focused:
				widget = st.Accent.Render(widget)
			case fl.boolVal < 0:
				widget = st.Dim.Render(widget)
			}
		case kindEnum:
			val := "not set"
			if fl.choice >= 0 {
				val = present.Line(scalarText(decodeAny(fl.enum[fl.choice])))
			}
			widget = fmt.Sprintf("‹ %s ›", val)
			if focused {
				widget = st.Accent.Render(widget)
			}
		default:
			widget = "[" + lineView(&fl.in, f.inputW) + "]"
		}
		typ := fl.kind.String()
		switch fl.kind {
		case kindArray:
			typ = fl.item.String() + "[]"
		case kindObjArray:
			typ = "object[]"
		case kindItem, kindObject:
			typ = ""
		}
		if fl.kind == kindEnum {
			typ = present.Count(len(fl.enum), "choice", "choices")
		}
		lines = append(lines, head+widget+" "+st.Faint.Render(typ))
		indent := strings.Repeat(" ", labelW+3)
		if focused {
			if d := describe(fl); d != "" {
				lines = append(lines, indent+st.Dim.Render(present.Truncate(d, w-labelW-3)))
			}
		}
		for _, e := range fl.errs {
			lines = append(lines, indent+st.Error.Render("✗ "+present.Line(e)))
		}
	}
	return lines, focusLine
}

// describe is the help under a focused field: description, default, and
// how to type lists.
func describe(fl *field) string {
	var parts []string
	if fl.desc != "" {
		parts = append(parts, present.OneLine(fl.desc, 200))
	}
	if len(fl.def) > 0 {
		parts = append(parts, "default "+present.CompactJSON(fl.def))
	}
	switch fl.kind {
	case kindJSON:
		parts = append(parts, "any JSON value")
	case kindEnum:
		var names []string
		for _, e := range fl.enum {
			names = append(names, present.Line(scalarText(decodeAny(e))))
		}
		parts = append(parts, "one of "+strings.Join(names, ", "))
	}
	return strings.Join(parts, " · ")
}

func decodeAny(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}
