package ui

import (
	"encoding/json"
	"strings"
	"testing"

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
	f.byPointer("/limits/memory").in.Set("512")
	f.byPointer("/tags").in.Set("a, b ,c")
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
	f := newForm(testCommon(), configureSchema(t), json.RawMessage(`{"name":"x","count":99,"limits":{"memory":1}}`))
	if f.validate() {
		t.Fatal("count 99 exceeds the maximum of 10, yet the form validated")
	}
	errs := f.byPointer("/count").errs
	if len(errs) != 1 || !strings.Contains(errs[0], "10") {
		t.Errorf("count errors = %q, want one naming the maximum", errs)
	}
	f.byPointer("/count").in.Set("three")
	f.validate()
	if errs := f.byPointer("/count").errs; len(errs) == 0 || errs[0] != "not an integer" {
		t.Errorf("count errors = %q, want not an integer", errs)
	}
}

func TestFormRawJSONRoundTrip(t *testing.T) {
	f := newForm(testCommon(), configureSchema(t), json.RawMessage(`{"name":"x","limits":{"memory":2}}`))
	f.toggleRaw()
	if !f.raw || !strings.Contains(f.editor.String(), `"memory": 2`) {
		t.Fatalf("raw editor does not hold the arguments:\n%s", f.editor.String())
	}
	f.editor.set(`{"name":"y","mode":"fast","limits":{"memory":3}}`)
	f.toggleRaw()
	if f.raw {
		t.Fatal("valid JSON did not go back to the form")
	}
	if f.byPointer("/name").in.String() != "y" || f.byPointer("/mode").choice != 0 || f.byPointer("/limits/memory").in.String() != "3" {
		t.Error("the form was not filled from the raw JSON")
	}
	f.toggleRaw()
	f.editor.set(`{"name":`)
	f.toggleRaw()
	if !f.raw || f.rawErr == "" {
		t.Error("broken JSON left the raw editor without saying why")
	}
}

func TestFormWithoutPropertiesStartsRaw(t *testing.T) {
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
	var e editor
	e.set("{}")
	e.update(keyMsg("right"))
	e.update(keyMsg("enter"))
	for _, k := range []string{"a", "space", "b"} {
		e.update(keyMsg(k))
	}
	e.update(keyMsg("backspace"))
	if got := e.String(); got != "{\na }" {
		t.Errorf("editor text = %q", got)
	}
}

func TestLineInput(t *testing.T) {
	var in lineInput
	for _, k := range []string{"h", "e", "y", "left", "left", "x"} {
		in.Update(keyMsg(k))
	}
	if in.String() != "hxey" {
		t.Errorf("text = %q, want hxey", in.String())
	}
	in.Update(keyMsg("backspace"))
	if in.String() != "hey" {
		t.Errorf("text = %q, want hey", in.String())
	}
}
