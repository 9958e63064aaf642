package ui

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/runtime/apphost"
	"mcpdeck/ui/uitest"
)

// fakeApps is an app host that records what it was asked to open.
type fakeApps struct {
	mu   sync.Mutex
	reqs []apphost.Request
}

func (f *fakeApps) Open(_ context.Context, req apphost.Request) (*apphost.App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return &apphost.App{ID: "v1", URL: "http://127.0.0.1:40123/app/v1/one-time-token", Server: req.Server, Tool: req.Tool,
		ResourceURI: "ui://weather/forecast.html"}, nil
}

// TestOpenAppFromResult: the Tools tab marks the tool with an app; after a
// call, a in the result opens its app with the call's arguments and
// result, the link goes to the browser and shows in a modal where y
// copies it; what the app then does shows on the status line.
func TestOpenAppFromResult(t *testing.T) {
	rt := uitest.New(uitest.ReadySnapshot())
	apps := &fakeApps{}
	var opened []string
	var mu sync.Mutex
	var copied []string
	notices := &AppNotices{}
	hs := start(t, rt, 100, 30, func(o *Options) {
		o.Apps, o.AppNotices = apps, notices
		o.OpenURL = func(u string) error { mu.Lock(); opened = append(opened, u); mu.Unlock(); return nil }
		o.Clipboard = func(s string) error { mu.Lock(); copied = append(copied, s); mu.Unlock(); return nil }
	})
	defer notices.Attach(hs.tm.Send)()
	hs.keys("j", "j", "j", "2", "tab") // weather › get_forecast
	hs.waitText("get_forecast [app]")
	hs.keys("enter")
	hs.waitText("Call weather › get_forecast")
	hs.keys("P", "a", "r", "i", "s", "enter")
	hs.action(`call weather get_forecast {"city":"Paris"}`)
	hs.waitText("Result of weather › get_forecast", "a open the tool's MCP App")
	hs.keys("a")
	hs.waitText("MCP App", "http://127.0.0.1:40123/app/v1/one-time-token", "The link opens once")
	apps.mu.Lock()
	if len(apps.reqs) != 1 || apps.reqs[0].Server != "weather" || apps.reqs[0].Tool != "get_forecast" || apps.reqs[0].Result == nil ||
		!json.Valid(apps.reqs[0].Arguments) || string(apps.reqs[0].Arguments) != `{"city":"Paris"}` {
		t.Errorf("the host was asked %+v", apps.reqs)
	}
	apps.mu.Unlock()
	hs.keys("y")
	hs.waitText("copied")
	mu.Lock()
	if len(opened) != 1 || opened[0] != "http://127.0.0.1:40123/app/v1/one-time-token" || len(copied) != 1 || copied[0] != opened[0] {
		t.Errorf("opened %q, copied %q", opened, copied)
	}
	mu.Unlock()
	notices.Report(apphost.Notice{Kind: apphost.NoticeLink, Tool: "get_forecast", URL: "https://example.com/\x1b[31mred"})
	hs.waitText("app of get_forecast: asks to open https://example.com/")
	if v := hs.waitText("choose Open or Dismiss"); containsEscape(v, "\x1b[31mred") {
		t.Error("a server's URL reached the terminal unsanitised")
	}
}

func containsEscape(v, s string) bool {
	for i := 0; i+len(s) <= len(v); i++ {
		if v[i:i+len(s)] == s {
			return true
		}
	}
	return false
}

// The Tools tab marks a tool with the word the CLI's APP column prints
// (present.AppMark): before, a tool with an app its app may not call
// (visibility ["model"]) was "[app]" here and "app (model only)" there.
func TestAppTagIsTheCLIsWord(t *testing.T) {
	t.Parallel()
	for meta, want := range map[string]string{
		``:                                "",
		`{"ui":{"resourceUri":"ui://a"}}`: " [app]",
		`{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`:   " [app-only]",
		`{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`: " [app (model only)]",
	} {
		if got := appTag(runtime.Tool{Meta: json.RawMessage(meta)}); got != want {
			t.Errorf("appTag(%s) = %q, want %q", meta, got, want)
		}
	}
}
