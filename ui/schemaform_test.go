package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

// realSchema is one of the schemas real server stacks send, kept in
// runtime/schema/testdata (its README names each source).
func realSchema(t testing.TB, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "runtime", "schema", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rows lists the form's rows as pointer:kind, * for required, ? for
// nullable.
func rows(f *form) string {
	var got []string
	for _, fl := range f.fields {
		s := fl.pointer() + ":" + fl.kind.String()
		if fl.required {
			s += "*"
		}
		if fl.node.Nullable {
			s += "?"
		}
		got = append(got, s)
	}
	return strings.Join(got, " ")
}

func mustArgs(t *testing.T, f *form) string {
	t.Helper()
	args, local := f.args()
	if local {
		t.Fatalf("the form holds text it cannot convert: %s", args)
	}
	return string(args)
}

// A Pydantic model (FastMCP's arguments) is a form: the nested model a
// sub-form, the Optional enum through $ref a chooser that can stay null,
// defaults filled in. It used to be the raw JSON box.
func TestPydanticSchemaIsAForm(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), realSchema(t, "pydantic-main-model.json"), nil)
	if f.raw {
		t.Fatal("the Pydantic model opened the raw JSON editor")
	}
	if got, want := rows(f), "/foo_bar:object* /foo_bar/count:integer* /foo_bar/size:number? /Gender:enum? /snap:integer"; got != want {
		t.Fatalf("rows:\n got %s\nwant %s", got, want)
	}
	if got := mustArgs(t, f); got != `{"foo_bar":{},"snap":42}` {
		t.Errorf("initial arguments = %s", got)
	}
	f.byPointer("/foo_bar/count").in.SetValue("3")
	gender := f.byPointer("/Gender")
	f.setFocus(f.indexOf(gender))
	f.update(keyMsg(" "))
	f.update(keyMsg(" "))
	if !f.validate() {
		t.Fatalf("valid arguments refused: %v", f.rootErr)
	}
	if got := mustArgs(t, f); got != `{"Gender":"female","foo_bar":{"count":3},"snap":42}` {
		t.Errorf("arguments = %s", got)
	}
	// Back to not set: left out, and the server's default (null) applies.
	f.update(keyMsg("left"))
	f.update(keyMsg("left"))
	if got := mustArgs(t, f); got != `{"foo_bar":{"count":3},"snap":42}` {
		t.Errorf("Gender not set: %s", got)
	}
	// The bounds come from the schema: snap is between 30 and 50.
	f.byPointer("/snap").in.SetValue("50")
	if f.validate() || len(f.byPointer("/snap").errs) == 0 {
		t.Error("snap 50 passed an exclusive maximum of 50")
	}
}

// A discriminated union (Pydantic, in a list) is a choice per item: a
// selector over the chosen model's fields, its tag sent with it.
func TestDiscriminatedUnionIsAChoice(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), realSchema(t, "pydantic-discriminated-list.json"), nil)
	pet := f.byPointer("/pet")
	if pet.kind != kindObjArray {
		t.Fatalf("pet is %s, want a list of sub-forms", pet.kind)
	}
	item := f.addItem(pet)
	if got, want := rows(f), "/pet:objects* /pet/0:choice* /pet/0/pet_type:const* /pet/0/meows:integer* /n:integer*"; got != want {
		t.Fatalf("rows:\n got %s\nwant %s", got, want)
	}
	f.byPointer("/pet/0/meows").in.SetValue("2")
	f.byPointer("/n").in.SetValue("1")
	if got := mustArgs(t, f); got != `{"n":1,"pet":[{"meows":2,"pet_type":"cat"}]}` {
		t.Errorf("a cat: %s", got)
	}
	f.setFocus(f.indexOf(item))
	f.update(keyMsg(" "))
	if got, want := rows(f), "/pet:objects* /pet/0:choice* /pet/0/pet_type:const* /pet/0/barks:number* /n:integer*"; got != want {
		t.Fatalf("after choosing Dog:\n got %s\nwant %s", got, want)
	}
	f.byPointer("/pet/0/barks").in.SetValue("1.5")
	if !f.validate() {
		t.Fatalf("a dog refused: %v %v", f.rootErr, f.byPointer("/pet/0").errs)
	}
	if got := mustArgs(t, f); got != `{"n":1,"pet":[{"barks":1.5,"pet_type":"dog"}]}` {
		t.Errorf("a dog: %s", got)
	}
	// The raw editor's text comes back as the right shape.
	f.toggleRaw()
	setEditorText(&f.editor, `{"n":2,"pet":[{"pet_type":"lizard","scales":true},{"pet_type":"cat","meows":1}]}`)
	f.toggleRaw()
	if got := f.byPointer("/pet/0").choice; got != 2 {
		t.Errorf("a lizard chose shape %d", got)
	}
	if got := mustArgs(t, f); got != `{"n":2,"pet":[{"pet_type":"lizard","scales":true},{"meows":1,"pet_type":"cat"}]}` {
		t.Errorf("from raw JSON: %s", got)
	}
	// - on an item's selector removes the item.
	f.setFocus(f.indexOf(f.byPointer("/pet/0")))
	f.update(keyMsg("-"))
	if got := mustArgs(t, f); got != `{"n":2,"pet":[{"meows":1,"pet_type":"cat"}]}` {
		t.Errorf("after removing the lizard: %s", got)
	}
}

// FastMCP's own test schema: null-only fields, a str | list[str] union,
// models without properties and nested models all become fields whose
// initial values already satisfy what they can.
func TestFastMCPComplexArguments(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), realSchema(t, "fastmcp-complex-arguments.json"), nil)
	if f.raw {
		t.Fatal("raw editor")
	}
	for ptr, kind := range map[string]fieldKind{
		"/must_be_none": kindNull, "/list_str_or_str": kindChoice, "/my_model_a": kindJSON,
		"/my_model_b/ok/x": kindInteger, "/my_model_b/y": kindNull, "/list_of_ints": kindArray,
	} {
		if fl := f.byPointer(ptr); fl == nil || fl.kind != kind {
			t.Errorf("%s: %+v, want a %s field", ptr, fl, kind)
		}
	}
	for ptr, v := range map[string]string{
		"/an_int": "1", "/an_int_annotated_with_field": "2", "/an_int_annotated_with_field_and_others": "3",
		"/an_int_annotated_with_junk": "4", "/unannotated": "u", "/my_model_b/how_many_shrimp": "5", "/my_model_b/ok/x": "6",
	} {
		f.byPointer(ptr).in.SetValue(v)
	}
	// The union starts at its first shape, a list.
	f.addItem(f.byPointer("/list_str_or_str").children[0]).in.SetValue("a")
	f.reflow()
	if !f.validate() {
		var errs []string
		for _, fl := range f.fields {
			for _, e := range fl.errs {
				errs = append(errs, fl.pointer()+": "+e)
			}
		}
		t.Fatalf("refused: %v %v", f.rootErr, errs)
	}
	var got map[string]any
	_ = json.Unmarshal([]byte(mustArgs(t, f)), &got)
	for k, want := range map[string]string{
		"must_be_none": "null", "list_str_or_str": `["a"]`, "my_model_a": "{}", "my_model_b": `{"how_many_shrimp":5,"ok":{"x":6},"y":null}`,
		"field_with_default_via_field_annotation_before_nondefault_arg": "1", "unannotated_with_default": `"5"`,
	} {
		if enc, _ := json.Marshal(got[k]); string(enc) != want {
			t.Errorf("%s = %s, want %s", k, enc, want)
		}
	}
	if _, sent := got["must_be_none_with_default"]; sent {
		t.Error("an optional null field was sent")
	}
}

// zod's .nullable() is required and accepts null: left empty it is null;
// a union of string and list is a choice; the discriminated union starts
// at its first shape with its tag.
func TestZodSchemaIsAForm(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), realSchema(t, "zod-shapes.json"), nil)
	f.byPointer("/title").in.SetValue("t")
	f.byPointer("/target").children[0].in.SetValue("x")
	f.byPointer("/shape/radius").in.SetValue("2")
	if !f.validate() {
		t.Fatalf("refused: %v", f.rootErr)
	}
	if got := mustArgs(t, f); got != `{"color":"red","note":null,"ratio":0.5,"shape":{"kind":"circle","radius":2},"target":"x","title":"t"}` {
		t.Errorf("arguments = %s", got)
	}
	// Its nested optional object stays out until a field of it is filled.
	f.byPointer("/address/city").in.SetValue("Oslo")
	f.validate()
	if errs := f.byPointer("/address/street").errs; len(errs) == 0 || errs[0] != "required" {
		t.Errorf("street errors = %q once the address is started", errs)
	}
}

// The recursive zod schema stops where it refers to itself: that field is
// edited as JSON, the rest as fields.
func TestRecursiveSchemaForm(t *testing.T) {
	t.Parallel()
	f := newForm(testCommon(), realSchema(t, "zod-tree.json"), nil)
	if got, want := rows(f), "/root:object* /root/name:string* /root/children:json"; got != want {
		t.Fatalf("rows:\n got %s\nwant %s", got, want)
	}
	f.byPointer("/root/name").in.SetValue("a")
	f.byPointer("/root/children").in.SetValue(`[{"name":"b"}]`)
	if !f.validate() {
		t.Fatalf("refused: %v", f.rootErr)
	}
}

// A schema the model refuses is edited as raw JSON, and the form says why.
func TestTooDeepSchemaFallsBackToRawJSON(t *testing.T) {
	t.Parallel()
	deep := json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, 4900) + `{"type":"string"}` + strings.Repeat(`}}`, 4900))
	f := newForm(testCommon(), deep, nil)
	f.setSize(100, 20)
	if !f.raw {
		t.Fatal("a schema nested 9,800 levels did not open the raw editor")
	}
	lines, _ := f.lines()
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "too large or deep for a form") || !strings.Contains(text, "edit the arguments as raw JSON") {
		t.Errorf("the form does not say why it is raw:\n%s", text)
	}
}

// The tool detail outlines the arguments from the same model, and names a
// schema too large to print instead of printing it.
func TestToolDetailOutlinesArguments(t *testing.T) {
	t.Parallel()
	tool := runtime.Tool{Server: "py", ServerTool: "main", Name: "py__main", InputSchema: realSchema(t, "pydantic-main-model.json")}
	text := ToolDetail(tool, nil, nil, 100)
	for _, want := range []string{
		"── arguments", "foo_bar *               object FooBar", "  count *               integer",
		"  size                  number or null · default null", "Gender                  one of male, female, other, not_given or null · default null",
		"snap                    integer · over 30, under 50 · default 42 · this is the value of snap",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the detail lacks %q:\n%s", want, text)
		}
	}
	tool.InputSchema = json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, 4900) + `{"type":"string"}` + strings.Repeat(`}}`, 4900))
	text = ToolDetail(tool, nil, nil, 100)
	if len(text) > 4000 || !strings.Contains(text, "(not shown: ") || !strings.Contains(text, "too large or deep to outline") {
		t.Errorf("the detail of a schema nested 9,800 levels (%d bytes):\n%s", len(text), text)
	}
}

// TestLongFormKeepsItsVerdictInView: a form taller than the screen (the
// FastMCP schema at 80×24) scrolls its fields, not the tool's description
// or the verdict under them. The verdict is what says that the next enter
// sends the arguments unvalidated: scrolled out of view, the person pressed
// enter twice and sent invalid arguments without having been told.
func TestLongFormKeepsItsVerdictInView(t *testing.T) {
	t.Parallel()
	tool := runtime.Tool{Server: "py", ServerTool: "complex", Description: "Takes every argument shape FastMCP writes.",
		InputSchema: realSchema(t, "fastmcp-complex-arguments.json")}
	tf := newToolForm(testCommon(), tool, nil)
	tf.SetSize(80, 20)
	view := func() string { return stripStyle(tf.View()) }
	if v := view(); !strings.Contains(v, "problems · fields marked * are required") || !strings.Contains(v, "Takes every argument shape") {
		t.Errorf("the long form hides its description or its problems at the first field:\n%s", v)
	}
	for range 40 {
		tf.Update(keyMsg("tab"))
	}
	if v := view(); !strings.Contains(v, "problems · fields marked * are required") || !strings.Contains(v, "Takes every argument shape") {
		t.Errorf("at the last field the form hides its description or its problems:\n%s", v)
	}
	for range 40 {
		tf.Update(keyMsg("shift+tab"))
	}
	if next, cmd := tf.Update(keyMsg("enter")); next == nil || cmd != nil {
		t.Fatal("invalid arguments were sent on the first enter")
	}
	if v := view(); !strings.Contains(v, "Send again to send them anyway") {
		t.Errorf("the first enter's warning is out of view; the next enter sends unvalidated:\n%s", v)
	}
	if v := view(); strings.Count(v, "\n")+1 != 20 {
		t.Errorf("the form is %d rows, want the 20 it was given:\n%s", strings.Count(v, "\n")+1, v)
	}
}
