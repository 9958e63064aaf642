package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/schema"
	"mcpdeck/ui/present"
)

// form edits a JSON object described by a JSON Schema: one field per
// property, or a raw JSON editor for what the fields cannot express. The
// fields come from runtime/schema's model of the schema: references
// followed, Optional (nullable) fields that can be left null, enums
// (through $ref too) as choosers, unions of shapes as a selector over the
// chosen shape's fields. It validates on every edit with the runtime's
// validator, so the errors the person sees are the ones the runtime would
// refuse the call with.
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
	// notice says why the last key did nothing (ctrl+e with a masked
	// value), until the next key.
	notice string
	// tooComplex says why the schema is edited as raw JSON only: the
	// model refused it (too large or deep), shown above the editor.
	tooComplex string
	// elicit: the form answers an elicitation, written for people:
	// fields are labelled by their titles and formats (email, uri, date,
	// date-time) are checked as typed.
	elicit bool

	// Set by setSize: the body's width, the rows the raw editor may take
	// at most, and the label and input columns of the fields.
	w, maxRows     int
	labelW, inputW int
}

// newForm builds the fields and fills them from prefill (the arguments
// last used) or else with their initial values (schema.Node.Initial).
func newForm(c *common, raw json.RawMessage, prefill json.RawMessage) *form {
	return buildForm(&form{c: c, schema: raw, editor: newEditor(c.st)}, prefill)
}

// newElicitForm is the form of an elicitation's requested schema.
func newElicitForm(c *common, raw json.RawMessage) *form {
	return buildForm(&form{c: c, schema: raw, editor: newEditor(c.st), elicit: true}, nil)
}

func buildForm(f *form, prefill json.RawMessage) *form {
	root, err := schema.Parse(f.schema)
	if err != nil {
		f.tooComplex = err.Error()
	} else {
		f.roots = objectChildren(root, nil, 0)
	}
	f.reflow()
	var args map[string]any
	if len(prefill) > 0 && json.Unmarshal(prefill, &args) == nil {
		f.fill(args)
	} else {
		initial(f.roots, f.give)
		f.reflow()
	}
	f.setFocus(f.nextFocusable(-1, 1))
	if len(f.fields) == 0 || f.focus < 0 {
		// Nothing the form can show: start in the raw editor.
		f.focus = 0
		if len(f.fields) == 0 && (root == nil || !emptyObject(root)) {
			f.raw = true
			start := prefill
			if len(start) == 0 {
				start = schema.Example(f.schema)
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
		f.labelW = max(f.labelW, 2*fl.depth+len([]rune(fl.label(f.elicit)))+1)
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

// emptyObject: a schema that takes no arguments (an object without
// properties); the form says so instead of opening the raw editor.
func emptyObject(n *schema.Node) bool {
	return (n.Type == "object" || n.Type == "") && len(n.Properties) == 0 && len(n.Choices) == 0 && n.Opaque == ""
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

func (f *form) fill(args map[string]any) {
	for _, fl := range f.roots {
		fl.set(args[fl.key], f.give)
	}
	f.reflow()
}

// give makes a field's text input; one that is null when left empty says
// so.
func (f *form) give(fl *field) {
	fl.in, fl.hasInput = newLineInput(f.c.st), true
	if f.elicit && secret(fl) {
		fl.in.EchoMode, fl.in.EchoCharacter = textinput.EchoPassword, '•'
	}
	if fl.required && fl.node.Nullable {
		fl.in.Placeholder = "null"
	}
}

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
			f.give(fl)
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
	if f.tooComplex != "" {
		f.rootErr = append(f.rootErr, "this schema is too large or deep for a form ("+f.tooComplex+"): edit the arguments as raw JSON")
	}
	errs, err := schema.Validate(f.schema, args, schema.Options{AssertFormats: f.elicit})
	if err != nil {
		var serr *schema.Error
		switch {
		case f.tooComplex != "":
		case errors.As(err, &serr):
			// One line a problem, path first, as the schema's errors are
			// listed everywhere (schema.Error.Lines).
			lines := serr.Lines()
			f.rootErr = append(f.rootErr, "the schema is invalid, arguments are not checked: "+lines[0])
			f.rootErr = append(f.rootErr, lines[1:]...)
		default:
			f.rootErr = append(f.rootErr, "the schema is invalid, arguments are not checked: "+err.Error())
		}
		return !local
	}
	for _, fe := range errs {
		if f.raw || f.chosen(fe) {
			f.attach(fe)
		}
	}
	return !local && len(errs) == 0
}

// chosen reports whether a violation belongs to the shapes the person
// chose: one from a union's other branches says only that the value is
// not that other shape, which the person knows.
func (f *form) chosen(fe schema.FieldError) bool {
	for _, alt := range fe.Alternatives {
		for _, fl := range f.fields {
			if fl.kind != kindChoice || fl.choice < 0 || !slices.Contains(fl.node.ChoiceAt, alt) {
				continue
			}
			ptr := fl.pointer()
			if (fe.Path == ptr || strings.HasPrefix(fe.Path, ptr+"/")) && fl.node.ChoiceAt[fl.choice] != alt {
				return false
			}
		}
	}
	return true
}

// attach shows a schema violation on its field: at the pointer's field,
// at the named missing property, or above the form.
func (f *form) attach(fe schema.FieldError) {
	if f.raw {
		f.rootErr = append(f.rootErr, fe.String())
		return
	}
	if strings.HasPrefix(fe.Message, "missing propert") {
		attached := false
		for _, m := range missingRe().FindAllStringSubmatch(fe.Message, -1) {
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
		fl.errs = append(fl.errs, f.masked(fl, fe.Message))
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

// masked keeps a masked field's value out of a message about it (a
// format error quotes the value).
func (f *form) masked(fl *field, msg string) string {
	if v := fl.in.Value(); f.elicit && secret(fl) && v != "" {
		return strings.ReplaceAll(msg, v, strings.Repeat("•", len([]rune(v))))
	}
	return msg
}

// hasSecret reports a masked field with a value: the raw JSON editor
// would show it in clear.
func (f *form) hasSecret() bool {
	return f.elicit && slices.ContainsFunc(f.fields, func(fl *field) bool { return secret(fl) && fl.in.Value() != "" })
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
		for _, d := range flatten([]*field{it}) {
			f.give(d)
		}
		initial([]*field{it}, f.give)
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
	fl := f.fields[f.focus]
	switch {
	case fl.kind == kindArray || fl.kind == kindObjArray:
		return []key.Binding{k.AddItem, keysRelabel(k.RemoveItem, "remove the last item")}
	case fl.parent != nil && fl.parent.kind == kindObjArray:
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
	if !f.raw && f.hasSecret() {
		f.notice = "the raw JSON would show the password in clear: clear it to edit as JSON"
		return
	}
	if !f.raw {
		args, _ := f.args()
		if !f.anyValue() {
			// Nothing typed yet: start from what the schema asks for.
			args = schema.Example(f.schema)
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
	f.notice = ""
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
	case kindBool:
		switch {
		case key.Matches(msg, k.Toggle):
			fl.cycleBool(1)
			changed = true
		case key.Matches(msg, k.PrevChoice):
			fl.cycleBool(-1)
			changed = true
		}
	case kindEnum, kindChoice:
		dir := 0
		switch {
		case key.Matches(msg, k.Toggle):
			dir = 1
		case key.Matches(msg, k.PrevChoice):
			dir = -1
		}
		if dir != 0 {
			if fl.kind == kindEnum {
				fl.choice = fl.cycle(len(fl.enum), dir)
			} else {
				fl.choose(fl.cycle(len(fl.node.Choices), dir), f.give)
				f.reflow()
			}
			changed = true
		}
	default:
		if fl.kind != kindItem {
			changed = editLine(&fl.in, msg)
		}
	}
	// An item of an array of objects or of shapes: - removes it.
	if item := fl.parent != nil && fl.parent.kind == kindObjArray; item && !changed && key.Matches(msg, k.RemoveItem) {
		parent := fl.parent
		parent.removeItem(fl)
		f.reflow()
		f.setFocus(f.indexOf(parent))
		changed = true
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
	if f.notice != "" {
		lines = append(lines, st.Error.Render("✗ "+f.notice))
	}
	if len(f.fields) == 0 {
		if f.elicit {
			lines = append(lines, st.Dim.Render("Nothing to fill in."))
		} else {
			lines = append(lines, st.Dim.Render("This tool takes no arguments."))
		}
	}
	labelW := f.labelW
	for i, fl := range f.fields {
		focused := i == f.focus
		marker := "  "
		if focused {
			marker = "› "
		}
		label := strings.Repeat("  ", fl.depth) + present.Line(fl.label(f.elicit))
		req := " "
		if fl.required {
			req = "*"
		}
		ls := st.Label
		if focused {
			ls = st.LabelFocus
			focusLine = len(lines)
		}
		head := marker + ls.Render(fieldLabel(label, labelW-1)) + st.Required.Render(req) + " "
		var widget string
		switch fl.kind {
		case kindObject:
			widget = st.Dim.Render("{")
			if fl.node.Nullable {
				widget += st.Faint.Render("  left empty: " + map[bool]string{true: "null", false: "left out"}[fl.required])
			}
		case kindConst:
			widget = st.Dim.Render("= " + present.CompactJSON(fl.node.Const))
		case kindNull:
			widget = st.Dim.Render("null")
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
		case kindEnum, kindChoice:
			val := "not set"
			switch {
			case fl.choice >= 0 && fl.kind == kindEnum:
				val = present.Line(enumText(fl.node, fl.choice))
			case fl.choice >= 0:
				val = present.Line(fl.node.ChoiceLabels()[fl.choice])
			case fl.required && fl.node.Nullable:
				val = "null"
			}
			widget = fmt.Sprintf("‹ %s ›", val)
			if focused {
				widget = st.Accent.Render(widget)
				if fl.parent != nil && fl.parent.kind == kindObjArray {
					widget += st.Faint.Render("  - removes this item")
				}
			}
		default:
			widget = "[" + lineView(&fl.in, f.inputW) + "]"
		}
		typ := fieldType(fl)
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

// fieldType is the type column of a field: its kind, ? when it accepts
// null, the format of a string.
func fieldType(fl *field) string {
	typ := fl.kind.String()
	switch fl.kind {
	case kindArray:
		typ = fl.item.String() + "[]"
	case kindObjArray:
		typ = "object[]"
		if fl.node.Items != nil && len(fl.node.Items.Choices) > 0 {
			typ = "choice[]"
		}
	case kindItem, kindObject, kindConst, kindNull:
		return ""
	case kindEnum:
		typ = present.Count(len(fl.enum), "choice", "choices")
	case kindChoice:
		typ = "one of " + strconv.Itoa(len(fl.node.Choices))
	case kindString:
		if fl.node.Format != "" {
			typ = present.Line(fl.node.Format)
		}
	}
	if fl.node.Nullable && fl.kind != kindChoice && fl.kind != kindEnum {
		typ += "?"
	}
	return typ
}

// enumText is an enum's value i as shown: its title when it has one.
func enumText(n *schema.Node, i int) string {
	if i < len(n.EnumTitles) && n.EnumTitles[i] != "" {
		return n.EnumTitles[i]
	}
	return schema.Text(n.Enum[i])
}

// describe is the help under a focused field: description, constraints,
// default, what an empty field sends, and how to type lists.
func describe(fl *field) string {
	var parts []string
	if fl.desc != "" {
		parts = append(parts, present.OneLine(fl.desc, 200))
	}
	if d := fl.node.Describe(); d != "" {
		parts = append(parts, present.Line(d))
	}
	if fl.node.Default != nil {
		parts = append(parts, "default "+present.CompactJSON(fl.node.Default))
	}
	switch fl.kind {
	case kindJSON:
		if fl.node.Opaque != "" {
			parts = append(parts, "JSON: "+present.Line(fl.node.Opaque))
		} else {
			parts = append(parts, "any JSON value")
		}
	case kindEnum:
		var names []string
		for i := range fl.enum {
			names = append(names, present.Line(enumText(fl.node, i)))
		}
		parts = append(parts, "one of "+strings.Join(names, ", "))
	case kindChoice:
		parts = append(parts, "one of "+strings.Join(fl.node.ChoiceLabels(), ", ")+" (space picks)")
	}
	if fl.node.Nullable && !fl.container() {
		empty := "empty"
		if fl.kind == kindEnum || fl.kind == kindBool {
			empty = "not set"
		}
		if fl.required {
			parts = append(parts, empty+": null")
		} else {
			parts = append(parts, empty+": left out")
		}
	}
	return strings.Join(parts, " · ")
}

func decodeAny(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}
