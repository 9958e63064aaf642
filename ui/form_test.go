package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/styles"
	"mcpdeck/ui/uitest"
)

func testCommon() *common {
	return &common{st: styles.Default(), keys: keys.DefaultKeyMap(), now: uitest.Now}
}

func configureSchema(t *testing.T) json.RawMessage {
	t.Helper()
	for _, tl := range uitest.EverythingTools() {
		if tl.ServerTool == "configure" {
			return tl.InputSchema
		}
	}
	t.Fatal("fixture has no configure tool")
	return nil
}

func TestSchemaFieldsCoverEveryKind(t *testing.T) {
	t.Parallel()
	fields := schemaFields(configureSchema(t))
	var got []string
	for _, f := range fields {
		s := f.pointer() + ":" + f.kind.String()
		if f.required {
			s += "*"
		}
		got = append(got, s)
	}
	want := "/name:string* /count:integer /verbose:boolean /mode:enum /tags:array /limits:object* /limits/cpu:number /limits/memory:integer*"
	if strings.Join(got, " ") != want {
		t.Errorf("fields in schema order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSchemaFieldsFallBackToJSON(t *testing.T) {
	t.Parallel()
	fields := schemaFields(json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}},"any":{},"opt":{"type":["integer","null"]}}}`))
	kinds := map[string]fieldKind{}
	for _, f := range fields {
		kinds[f.name()] = f.kind
	}
	if kinds["rows"] != kindJSON || kinds["any"] != kindJSON || kinds["opt"] != kindInteger {
		t.Errorf("kinds = %v; want rows and any as json, opt as integer", kinds)
	}
}

func TestFormBuildsArgumentsFromDefaultsAndEdits(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), configureSchema(t), nil)
	args, local := f.args()
	if local {
		t.Fatal("defaults reported as unconvertible")
	}
	if string(args) != `{"count":3,"limits":{},"mode":"safe","name":"deck"}` {
		t.Errorf("arguments from defaults = %s", args)
	}
	if f.validate() {
		t.Error("the required limits.memory is missing, yet the form validated")
	}
	if mem := f.byPointer("/limits/memory"); len(mem.errs) == 0 || mem.errs[0] != "required" {
		t.Errorf("limits.memory errors = %q, want required", mem.errs)
	}
	f.byPointer("/limits/memory").in.SetValue("512")
	tags := f.byPointer("/tags")
	for _, v := range []string{"a", "b", "c"} {
		f.addItem(tags).in.SetValue(v)
	}
	f.byPointer("/verbose").boolVal = 0
	if !f.validate() {
		t.Fatalf("valid arguments refused: %v %v", f.rootErr, f.byPointer("/limits/memory").errs)
	}
	args, _ = f.args()
	if string(args) != `{"count":3,"limits":{"memory":512},"mode":"safe","name":"deck","tags":["a","b","c"],"verbose":false}` {
		t.Errorf("arguments = %s", args)
	}
}

func TestFormShowsSchemaViolationsOnFields(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), configureSchema(t), json.RawMessage(`{"name":"x","count":99,"limits":{"memory":1}}`))
	if f.validate() {
		t.Fatal("count 99 exceeds the maximum of 10, yet the form validated")
	}
	errs := f.byPointer("/count").errs
	if len(errs) != 1 || !strings.Contains(errs[0], "10") {
		t.Errorf("count errors = %q, want one naming the maximum", errs)
	}
	f.byPointer("/count").in.SetValue("three")
	f.validate()
	if errs := f.byPointer("/count").errs; len(errs) == 0 || errs[0] != "not an integer" {
		t.Errorf("count errors = %q, want not an integer", errs)
	}
}

func TestFormRawJSONRoundTrip(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), configureSchema(t), json.RawMessage(`{"name":"x","limits":{"memory":2}}`))
	f.toggleRaw()
	if !f.raw || !strings.Contains(f.editor.Value(), `"memory": 2`) {
		t.Fatalf("raw editor does not hold the arguments:\n%s", f.editor.Value())
	}
	setEditorText(&f.editor, `{"name":"y","mode":"fast","limits":{"memory":3}}`)
	f.toggleRaw()
	if f.raw {
		t.Fatal("valid JSON did not go back to the form")
	}
	if f.byPointer("/name").in.Value() != "y" || f.byPointer("/mode").choice != 0 || f.byPointer("/limits/memory").in.Value() != "3" {
		t.Error("the form was not filled from the raw JSON")
	}
	f.toggleRaw()
	setEditorText(&f.editor, `{"name":`)
	f.toggleRaw()
	if !f.raw || f.rawErr == "" {
		t.Error("broken JSON left the raw editor without saying why")
	}
}

func TestFormWithoutPropertiesStartsRaw(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), json.RawMessage(`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`), nil)
	if f.raw {
		t.Error("an object schema without properties needs no raw editor: it takes no arguments")
	}
	f = newForm(testCommon(), json.RawMessage(`{"type":"array"}`), nil)
	if !f.raw {
		t.Error("a schema the form cannot express did not open the raw editor")
	}
}

func TestEditorEditsLines(t *testing.T) {
	t.Parallel()
	ed := newEditor(testCommon().st)
	setEditorText(&ed, "{}")
	ed.SetWidth(40)
	for _, k := range []string{"right", "enter", "a", "space", "b", "backspace", "tab", "c"} {
		editText(&ed, keyMsg(k))
	}
	if got := ed.Value(); got != "{\na   c}" {
		t.Errorf("editor text = %q, want %q", got, "{\na   c}")
	}
	// Pasted text arrives whole, newlines and all.
	setEditorText(&ed, "")
	editText(&ed, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("{\n  \"a\": 1\n}"), Paste: true})
	if got := ed.Value(); got != "{\n  \"a\": 1\n}" {
		t.Errorf("pasted text = %q", got)
	}
}

func TestLineInput(t *testing.T) {
	t.Parallel()
	in := newLineInput(testCommon().st)
	in.Focus()
	for _, k := range []string{"h", "e", "y", "left", "left", "x"} {
		editLine(&in, keyMsg(k))
	}
	if in.Value() != "hxey" {
		t.Errorf("text = %q, want hxey", in.Value())
	}
	if !editLine(&in, keyMsg("backspace")) || in.Value() != "hey" {
		t.Errorf("text = %q, want hey", in.Value())
	}
	if editLine(&in, keyMsg("left")) {
		t.Error("moving the cursor was reported as a change")
	}
	if !editLine(&in, keyMsg("space")) || in.Value() != " hey" {
		t.Errorf("after space the text is %q, want %q", in.Value(), " hey")
	}
	// The input scrolls so its cursor shows, and draws in exactly its width.
	in.SetValue("a long value that does not fit")
	setLineWidth(&in, 10)
	in.CursorEnd()
	if v := lineView(&in, 10); ansi.StringWidth(v) != 10 || !strings.Contains(v, "fit") {
		t.Errorf("view = %q, want 10 cells ending in the text's end", v)
	}
}

// nestedSchema has an array of objects with an array of scalars inside.
const nestedSchema = `{"type":"object","properties":{
	"title":{"type":"string"},
	"rows":{"type":"array","items":{"type":"object","properties":{
		"name":{"type":"string"},
		"tags":{"type":"array","items":{"type":"integer"}}},"required":["name"]}}
},"required":["title","rows"]}`

func TestFormNestedArraysAsSubForms(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), json.RawMessage(nestedSchema), json.RawMessage(`{"title":"t","rows":[{"name":"a","tags":[1,2]},{"name":"b"}]}`))
	var got []string
	for _, fl := range f.fields {
		got = append(got, fl.pointer()+":"+fl.kind.String())
	}
	want := "/title:string /rows:objects /rows/0:item /rows/0/name:string /rows/0/tags:array /rows/0/tags/0:integer /rows/0/tags/1:integer /rows/1:item /rows/1/name:string /rows/1/tags:array"
	if strings.Join(got, " ") != want {
		t.Fatalf("rows:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if args, _ := f.args(); string(args) != `{"rows":[{"name":"a","tags":[1,2]},{"name":"b"}],"title":"t"}` {
		t.Errorf("prefilled arguments = %s", args)
	}
	// - on an item's heading removes it; + on the array's heading adds one
	// and focuses its first field.
	f.setFocus(f.indexOf(f.byPointer("/rows/0")))
	f.update(keyMsg("-"))
	if args, _ := f.args(); string(args) != `{"rows":[{"name":"b"}],"title":"t"}` {
		t.Errorf("after removing the first row: %s", args)
	}
	f.setFocus(f.indexOf(f.byPointer("/rows")))
	f.update(keyMsg("+"))
	if fl := f.fields[f.focus]; fl.pointer() != "/rows/1/name" {
		t.Fatalf("focus after + is %s, want /rows/1/name", fl.pointer())
	}
	for _, k := range []string{"c", "tab", "+", "7"} {
		f.update(keyMsg(k))
	}
	if args, _ := f.args(); string(args) != `{"rows":[{"name":"b"},{"name":"c","tags":[7]}],"title":"t"}` {
		t.Errorf("after adding a row: %s", args)
	}
	// A violation deep in an item lands on its field.
	f.byPointer("/rows/1/tags/0").in.SetValue("x")
	f.validate()
	if errs := f.byPointer("/rows/1/tags/0").errs; len(errs) == 0 || errs[0] != "not an integer" {
		t.Errorf("item errors = %q", errs)
	}
}

func TestFormRawStartsFromTheSchemaSkeleton(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), json.RawMessage(nestedSchema), nil)
	f.toggleRaw()
	if got := f.editor.Value(); !strings.Contains(got, `"title": ""`) || !strings.Contains(got, `"rows": []`) {
		t.Errorf("raw editor starts from %q, want the skeleton of the required fields", got)
	}
}

func TestToolFormValidationToggle(t *testing.T) {
	t.Parallel()
	c := testCommon()
	tool := uitest.EverythingTools()[0] // add: a and b required
	tf := newToolForm(c, tool, nil)
	tf.SetSize(100, 30)
	if next, cmd := tf.Update(keyMsg("enter")); next == nil || cmd != nil {
		t.Fatal("invalid arguments were sent on the first enter with validation on")
	}
	tf.armed = false
	tf.Update(tea.KeyMsg{Type: tea.KeyCtrlT})
	if !strings.Contains(tf.View(), "validation off") {
		t.Errorf("the form does not say validation is off:\n%s", tf.View())
	}
	next, cmd := tf.Update(keyMsg("enter"))
	if next != nil || cmd == nil {
		t.Fatal("with validation off, enter did not send")
	}
	if intent, ok := cmd().(callIntentMsg); !ok || !intent.noValidate {
		t.Errorf("sent %#v, want an unvalidated call", cmd())
	}
}

// boolForm is a form with an optional and a required boolean, and the
// first line of each field as drawn.
func boolForm(t *testing.T) (*form, func() (opt, req string)) {
	t.Helper()
	f := newForm(testCommon(), json.RawMessage(`{"type":"object","properties":{"opt":{"type":"boolean"},"req":{"type":"boolean"}},"required":["req"]}`), nil)
	f.setSize(80, 20)
	drawn := func() (opt, req string) {
		lines, _ := f.lines()
		for _, l := range lines {
			l = ansi.Strip(l)
			switch {
			case strings.Contains(l, "opt "):
				opt = l
			case strings.Contains(l, "req*"):
				req = l
			}
		}
		return opt, req
	}
	return f, drawn
}

// An optional boolean cycles unset → true → false → unset with the toggle
// key (← goes the other way), "unset" is drawn as such and leaves the
// property out; a required boolean has two states, false and true.
func TestBooleanFieldStates(t *testing.T) {
	t.Parallel()
	f, drawn := boolForm(t)
	space, left := tea.KeyMsg{Type: tea.KeySpace}, tea.KeyMsg{Type: tea.KeyLeft}
	opt, req := drawn()
	if !strings.Contains(opt, "[-] unset (left out)") || !strings.Contains(req, "[ ] false") {
		t.Fatalf("untouched: opt %q, req %q; want opt unset and req false", opt, req)
	}
	if args, _ := f.args(); string(args) != `{"req":false}` {
		t.Errorf("untouched arguments %s: the unset optional boolean must be left out", args)
	}
	if !f.validate() {
		t.Errorf("a required boolean at false is refused: %v", f.byPointer("/req").errs)
	}

	// The optional one: unset → true → false → unset.
	var got []string
	for range 3 {
		f.update(space)
		a, _ := f.args()
		got = append(got, string(a))
	}
	if want := []string{`{"opt":true,"req":false}`, `{"opt":false,"req":false}`, `{"req":false}`}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("toggling opt gives %v, want %v", got, want)
	}
	f.update(left) // unset → false, backwards
	if a, _ := f.args(); string(a) != `{"opt":false,"req":false}` {
		t.Errorf("← from unset gives %s, want opt false", a)
	}

	// The required one: false → true → false, never unset.
	f.update(tea.KeyMsg{Type: tea.KeyTab})
	got = got[:0]
	for range 3 {
		f.update(space)
		_, req := drawn()
		got = append(got, strings.TrimSpace(req[strings.Index(req, "["):]))
	}
	if want := "[x] true boolean|[ ] false boolean|[x] true boolean"; strings.Join(got, "|") != want {
		t.Errorf("toggling req draws %q, want %q", strings.Join(got, "|"), want)
	}
	f.update(left)
	f.update(left)
	if a, _ := f.args(); string(a) != `{"opt":false,"req":true}` {
		t.Errorf("← twice on req gives %s", a)
	}
}

// Arguments filled in (the last call's, or the raw editor's) set each
// boolean; a required one they leave out is false, an optional one unset.
func TestBooleanFieldsFilled(t *testing.T) {
	t.Parallel()
	f, drawn := boolForm(t)
	f.fill(map[string]any{"opt": true})
	opt, req := drawn()
	if !strings.Contains(opt, "[x] true") || !strings.Contains(req, "[ ] false") {
		t.Errorf("filled: opt %q, req %q", opt, req)
	}
	f.fill(map[string]any{"req": true})
	if opt, _ := drawn(); !strings.Contains(opt, "[-] unset") {
		t.Errorf("opt left out of the arguments is drawn %q, want unset", opt)
	}
}

// A label cut to its column keeps a space before the required marker:
// "very_long_field_nam…*" ran the two together.
func TestTruncatedLabelKeepsItsRequiredMarker(t *testing.T) {
	f := newForm(testCommon(), json.RawMessage(`{"type":"object","properties":{"a_very_long_required_field_name":{"type":"string"},"x":{"type":"string"}},"required":["a_very_long_required_field_name"]}`), nil)
	f.setSize(60, 20)
	lines, _ := f.lines()
	first := ansi.Strip(lines[0])
	if !strings.Contains(first, "… * [") {
		t.Errorf("the cut label runs into its marker: %q", first)
	}
	c := testCommon()
	c.snap = uitest.ReadySnapshot()
	a := newArgsForm(c, "everything", runtime.CompletionRef{}, []*argField{{name: "a_very_long_required_argument_name", required: true}, {name: "x"}})
	a.setSize(60)
	lines, _ = a.lines()
	if first := ansi.Strip(lines[0]); !strings.Contains(first, "… * [") {
		t.Errorf("the cut argument name runs into its marker: %q", first)
	}
}
