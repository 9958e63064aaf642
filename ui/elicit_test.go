package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/textinput"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// The elicitation form is written for people: fields are labelled by
// their titles (they were labelled by key), and formats are checked as
// typed (it accepted "not-an-email" for format: email). The schema is
// server-everything's.
func TestElicitationFormTitlesAndFormats(t *testing.T) {
	t.Parallel()
	hs, got := askForm(t, runtime.ElicitRequest{Server: "everything", Message: "Please provide inputs for the following fields:",
		RequestedSchema: realSchema(t, "everything-elicitation.json")})
	v := hs.waitText("everything asks", "String with email format", "Titled Single Select Enum")
	if strings.Contains(v, "untitledSingleSelectEnum") || strings.Contains(v, "firstLine") {
		t.Errorf("fields are labelled by key:\n%s", v)
	}
	fillEverythingForm(hs)
	resp := <-got
	if resp.Action != "accept" || resp.Content["name"] != "Ada" || resp.Content["email"] != "ada@example.com" || resp.Content["titledSingleSelectEnum"] != "hero-1" {
		t.Fatalf("answer = %+v", resp)
	}
}

// askForm starts the TUI on a fake runtime and has it ask req: the form
// opens, and its answer comes on the channel.
func askForm(t *testing.T, req runtime.ElicitRequest) (*harness, <-chan runtime.ElicitResponse) {
	t.Helper()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40)
	hs.action("elicitor")
	got := make(chan runtime.ElicitResponse, 1)
	go func() {
		resp, _ := rt.Elicit(context.Background(), req)
		got <- resp
	}()
	return hs, got
}

// The same with server-everything itself: its form is labelled by
// titles, a malformed email is refused as typed, and what is accepted
// reaches the server.
func TestElicitationFormOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs := startEverything(t)
	hs.openTool("trigger-elicitation-request")
	hs.keys("enter")
	hs.waitText("everything asks", "String with email format")
	fillEverythingForm(hs)
	hs.waitText("Result of everything › trigger-elicitation-request", "Name: Ada", "Email: ada@example.com")
}

// fillEverythingForm types a name and an email into server-everything's
// elicitation form, first one that is not an email: it is refused as
// typed, and enter does not accept it. Then it accepts a good one.
func fillEverythingForm(hs *harness) {
	hs.keys("A", "d", "a", "tab", "tab", "tab")
	hs.tm.Type("not-an-email")
	hs.waitText("✗ 'not-an-email' is not valid email")
	hs.keys("enter")
	hs.waitText("everything asks") // not accepted
	for range len("not-an-email") {
		hs.keys("backspace")
	}
	hs.tm.Type("ada@example.com")
	hs.waitView("the email accepted", func(v string) bool {
		return strings.Contains(v, "[ada@example.com") && !strings.Contains(v, "not valid email")
	})
	hs.keys("enter")
}

// The TS SDK example's register_user asks for a field titled "Password"
// (no format, no writeOnly): the form masks it, keeps it out of its error
// lines and out of the raw JSON view, and sends it as typed. It was shown
// in clear (found by qa).
func TestElicitationFormMasksPasswords(t *testing.T) {
	t.Parallel()
	hs, got := askForm(t, runtime.ElicitRequest{Server: "sdk", Message: "Please provide your registration information:",
		RequestedSchema: realSchema(t, "sdk-register-user-elicitation.json")})
	hs.waitText("sdk asks", "Password")
	hs.tm.Type("ada")
	hs.keys("tab")
	hs.tm.Type("ada@example.com")
	hs.keys("tab")
	hs.tm.Type("hunter2") // one short of minLength: an error on the field
	v := hs.waitText("•••••••", "✗")
	if strings.Contains(v, "hunter2") {
		t.Fatalf("the password shows in clear:\n%s", v)
	}
	hs.keys("ctrl+e")
	v = hs.waitText("would show the password in clear")
	if strings.Contains(v, "hunter2") {
		t.Fatalf("the raw JSON shows the password:\n%s", v)
	}
	hs.tm.Type("9")
	hs.waitView("the password long enough", func(v string) bool {
		return strings.Contains(v, "••••••••") && !strings.Contains(v, "✗")
	})
	hs.keys("enter")
	if resp := <-got; resp.Action != "accept" || resp.Content["password"] != "hunter29" {
		t.Fatalf("answer = %+v, want the password as typed", resp)
	}
}

// What counts as a password field: writeOnly, format "password", a key or
// title naming a password, secret, token or API key; a number never is.
// A format error that quotes the value quotes it masked.
func TestElicitationSecretFields(t *testing.T) {
	t.Parallel()
	f := newElicitForm(testCommon(), json.RawMessage(`{"type":"object","properties":{
		"pin":{"type":"string","writeOnly":true,"format":"email"},
		"p":{"type":"string","format":"password"},
		"gh":{"type":"string","title":"GitHub Token"},
		"api_key":{"type":"string"},
		"clientSecret":{"type":"string"},
		"username":{"type":"string","title":"User name"},
		"max_tokens":{"type":"integer"}}}`))
	for key, want := range map[string]bool{"pin": true, "p": true, "gh": true, "api_key": true, "clientSecret": true, "username": false, "max_tokens": false} {
		if fl := f.byPointer("/" + key); secret(fl) != want || (fl.in.EchoMode == textinput.EchoPassword) != want {
			t.Errorf("%s: secret %v, echo mode %v; want secret %v", key, secret(fl), fl.in.EchoMode, want)
		}
	}
	f.byPointer("/pin").in.SetValue("4711-not-mail")
	f.validate()
	if errs := f.byPointer("/pin").errs; len(errs) == 0 || strings.Contains(strings.Join(errs, " "), "4711") || !strings.Contains(errs[0], "•••••••••••••") {
		t.Errorf("pin errors = %q, want the format error with the value masked", errs)
	}
	// A tool's form is the operator's own input: it is not masked.
	if fl := newForm(testCommon(), json.RawMessage(`{"type":"object","properties":{"token":{"type":"string"}}}`), nil).byPointer("/token"); fl.in.EchoMode == textinput.EchoPassword {
		t.Error("a tool form masks its token field")
	}
}
