package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

func TestGoldenResourcesTab(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h)
		hs.keys("j", "8", "tab", "j", "u")
		hs.action("resources/subscribe everything test://static/resource/2")
		v := hs.waitText("3 resources · 1 template", "◉", "greeting")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenPromptsTab(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(uitest.ReadySnapshot()), w, h)
		hs.keys("j", "9", "tab", "j")
		v := hs.waitText("2 prompts", "› complex_prompt", "temperature*")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenPromptFormWithSuggestions(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h)
		hs.keys("j", "9", "tab", "j", "enter")
		hs.waitText("Prompt everything › complex_prompt")
		hs.keys("a")
		v := hs.waitView("suggestions for a", func(v string) bool {
			// The header counts the completion request until its end is
			// seen; under load that can be a frame after the suggestions.
			return strings.Contains(v, "suggestions: Ada  Alan") && !strings.Contains(v, "Barbara") && strings.Contains(v, "[a ") &&
				strings.Contains(v, "requests 0")
		})
		golden.RequireEqual(t, []byte(v))
	})
}

// Reading shows text, JSON pretty-printed and binary as its size; a
// missing resource says so.
func TestResourceViewerShowsEveryKind(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 100, 30)
	hs.keys("j", "8", "tab", "enter")
	hs.waitText("everything › test://static/resource/1", "contents of test://static/resource/1 (read 1)")
	hs.keys("esc", "j", "enter")
	hs.waitText("binary · application/octet-stream · 10B", "s saves it")
	hs.keys("esc", "j", "enter")
	hs.waitText(`"debug": true,`, `"level": 3`)
	hs.keys("esc")
	hs.waitView("viewer closed", func(v string) bool {
		return !strings.Contains(v, "test://config.json ") || strings.Contains(v, "3 resources")
	})
}

// A subscribed resource is read again when the server says it changed;
// the update shows in the tab and in the notification stream.
func TestSubscribedResourceRereadsOnUpdate(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 35)
	hs.keys("j", "8", "tab", "enter")
	hs.waitText("(read 1)")
	hs.keys("u")
	hs.action("resources/subscribe everything test://static/resource/1")
	hs.waitText("◉ everything › test://static/resource/1", "subscribed: updates re-read it")
	rt.UpdateResource("everything", "test://static/resource/1")
	hs.waitText("(read 2)", "2 reads", "updated 12:00:00", "test://static/resource/1 changed and was read again")
	hs.keys("esc")
	hs.waitText("updated 12:00:00")
	hs.keys("4")
	hs.waitText("notifications/resources")
	if n := rt.Reads("test://static/resource/1"); n != 2 {
		t.Errorf("%d reads, want 2 (one by hand, one on the update)", n)
	}
	// Unsubscribed, an update is shown but not read.
	hs.keys("8", "u")
	hs.action("resources/unsubscribe everything test://static/resource/1")
	rt.UpdateResource("everything", "test://static/resource/1")
	hs.keys("4")
	hs.waitView("two updates", func(v string) bool { return strings.Count(v, "notifications/resources") >= 2 })
	if n := rt.Reads("test://static/resource/1"); n != 2 {
		t.Errorf("an unsubscribed resource was read on update: %d reads", n)
	}
}

// A template opens a form for its variables with suggestions from
// completion/complete; enter reads the URI they make.
func TestTemplateFormCompletesAndReads(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 100, 30)
	hs.keys("j", "8", "tab", "G", "enter")
	hs.waitText("Read everything › greeting", "test://greeting/{name}")
	hs.keys("g")
	hs.waitText("suggestions: Grace")
	hs.keys("right")
	hs.waitText("reads test://greeting/Grace")
	hs.keys("enter")
	hs.action("resources/read everything test://greeting/Grace")
	hs.waitText("contents of test://greeting/Grace")
}

// A prompt's form marks required arguments and refuses to send without
// them; the result shows as its message list.
func TestPromptFormAndMessages(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 100, 30)
	hs.keys("j", "9", "tab", "j", "enter")
	hs.waitText("Prompt everything › complex_prompt")
	hs.keys("enter")
	hs.waitText("✗ required")
	hs.keys("0", ".", "5", "tab", "t", "e", "r", "s", "e", "enter")
	hs.action("prompts/get everything complex_prompt")
	hs.waitText("Prompt everything › complex_prompt", "── 1 user", "complex_prompt with style=terse, temperature=0.5")
	hs.keys("esc", "enter")
	hs.waitText("[0.5") // the arguments are kept for the next time
}

func TestLogLevelKey(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 100, 30)
	hs.keys("j")
	hs.waitText("log level    info")
	hs.keys("L")
	hs.waitText("Log level of everything", "now: info")
	hs.keys("g", "enter")
	hs.action("logging/setLevel everything debug")
	hs.waitText("log level    debug", "everything now logs at debug")
	hs.keys("k", "L")
	hs.waitText("broken has failed")
}

func TestRootsEditor(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 100, 30)
	hs.keys("j")
	hs.waitText("none offered")
	hs.keys("o")
	hs.waitText("Roots of everything", "No roots")
	hs.keys("+", "/", "s", "r", "v", "enter", "a", "/", "t", "m", "p", "enter")
	hs.waitText("/srv", "/tmp")
	hs.keys("k", "-", "enter")
	hs.action("roots everything /tmp")
	hs.waitText("roots        /tmp", "offered 1 root now")
}

// Every call is kept in the history: reopen its result, run it again as
// it was, or edit its arguments first.
func TestCallHistory(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HistoryDropped = 3
	hs := start(t, rt, 120, 35)
	hs.keys("j", "2", "tab", "j", "j", "enter") // everything › echo
	hs.waitText("Call everything › echo")
	hs.keys("h", "i", "enter")
	hs.action(`call everything echo {"message":"hi"}`)
	hs.waitText("Result of everything › echo")
	hs.keys("esc", "3")
	hs.waitText("history · 1 call", "3 older dropped", `{"message":"hi"}`)
	hs.keys("enter")
	hs.waitText("Result of everything › echo", `echo: {"message":"hi"}`)
	hs.keys("esc", "E")
	hs.action(`call everything echo {"message":"hi"}`)
	hs.keys("esc", "3")
	hs.waitText("history · 2 calls")
	hs.keys("e")
	hs.waitText("Call everything › echo", "[hi")
	hs.keys("!", "enter")
	hs.action(`call everything echo {"message":"hi!"}`)
}

// A result's search finds lines; a linked resource opens in the viewer.
func TestResultSearchAndLinks(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	var lines []string
	for i := range 200 {
		lines = append(lines, "line "+itoa(i))
	}
	rt.CallFunc = func(_ context.Context, req runtime.CallRequest) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: strings.Join(lines, "\n")},
			{Type: "resource_link", URI: "test://config.json", Name: "config"}}}, nil
	}
	hs := start(t, rt, 100, 30)
	hs.keys("j", "2", "tab", "j", "j", "enter")
	hs.waitText("Call everything › echo")
	hs.keys("x", "enter")
	hs.waitText("Result of everything › echo", "line 0")
	hs.keys("/", "1", "5", "0", "enter")
	hs.waitText("line 150", "match 1 of 1")
	hs.keys("G", "o")
	hs.waitText(`"debug": true`)
}

func TestToolDetails(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 100, 40)
	hs.keys("j", "2", "tab", "j", "d")
	hs.waitText("Tool everything › configure", "── input schema", `"default": "deck"`)
	hs.keys("G")
	hs.waitText("── example arguments", `"name": "deck"`, "(none: results are not checked)")
}
