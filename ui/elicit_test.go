package ui

import (
	"context"
	"strings"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// The elicitation form is written for people: fields are labelled by
// their titles (they were labelled by key), and formats are checked as
// typed (it accepted "not-an-email" for format: email). The schema is
// server-everything's.
func TestElicitationFormTitlesAndFormats(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40)
	hs.action("elicitor")
	got := make(chan runtime.ElicitResponse, 1)
	go func() {
		resp, _ := rt.Elicit(context.Background(), runtime.ElicitRequest{Server: "everything", Message: "Please provide inputs for the following fields:",
			RequestedSchema: realSchema(t, "everything-elicitation.json")})
		got <- resp
	}()
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
