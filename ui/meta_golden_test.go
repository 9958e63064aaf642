package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/ui/styles"
	"mcpdeck/ui/uitest"
)

// A tool's details show its _meta (an MCP App's ui.resourceUri and
// visibility), one line a key, next to its annotations.
func TestGoldenToolDetailMeta(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		// The app's resource, read for its CSP and permissions.
		rt.Contents = map[string]json.RawMessage{"ui://weather/forecast.html": json.RawMessage(`{"contents":[{"uri":"ui://weather/forecast.html",
			"mimeType":"text/html;profile=mcp-app","text":"<!DOCTYPE html><html><body>forecast</body></html>",
			"_meta":{"ui":{"csp":{"connectDomains":["https://api.weather.example.com"]},"permissions":{"geolocation":{}}}}}]}`)}
		hs := start(t, rt, w, h)
		hs.keys("j", "j", "j", "2", "tab", "d") // weather, Tools, focus, get_forecast's details
		// The app's resource is read on a command and its RequestFinished
		// comes on the event stream: wait for both (see TestGoldenResultMeta).
		v := hs.waitText("Tool weather › get_forecast", "── MCP App", "permissions  geolocation", "── _meta", "ui://weather/forecast.html", "readOnlyHint", "requests 0")
		golden.RequireEqual(t, []byte(v))
	})
}

// The result viewer shows the result's _meta (an MCP App's viewUUID) and
// each block's annotations and _meta, compact and sanitised.
func TestGoldenResultMeta(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		rt.CallFunc = func(context.Context, runtime.CallRequest) (*runtime.Result, error) {
			return &runtime.Result{
				Content: []runtime.Content{
					{Type: "text", Text: "Sunny, 21°C", Annotations: json.RawMessage(`{"audience":["user"],"priority":0.9}`),
						Meta: json.RawMessage(`{"com.example/source":"station 7"}`)},
					{Type: "text", Text: "hidden from the model", Annotations: json.RawMessage(`{"audience":["user"]}`)},
				},
				Meta:      json.RawMessage(`{"viewUUID":"3f2a-forecast","com.example/trace":"t-\u001b[31mred"}`),
				RequestID: 7,
			}, nil
		}
		hs := start(t, rt, w, h)
		hs.keys("j", "2", "tab", "j", "j") // everything › echo
		hs.waitText("› echo")
		hs.keys("enter")
		hs.waitText("Call everything › echo", "required")
		hs.keys("h", "i", "enter")
		// The result comes back on the call's command and RequestFinished on
		// the event stream: the frame the golden holds is the one both have
		// reached (under load the result has been drawn first).
		v := hs.waitText("Result of everything › echo", "── _meta", "viewUUID", "priority=0.9", "requests 0")
		golden.RequireEqual(t, []byte(v))
	})
}

// A server's _meta is data: what would drive a terminal (a C1 control, a
// bidi override) reaches the screen escaped, in keys and values alike.
func TestMetaLinesSanitised(t *testing.T) {
	raw := json.RawMessage("{\"a\u009b31m\":\"x\u202ey\",\"ok\":[1,\"\u009d]0;title\u0007\"]}")
	for _, l := range append(metaLines(styles.Styles{}, raw, 80), blockMeta(raw)) {
		for _, r := range []rune{'\u009b', '\u202e', '\u009d', '\u0007', '\x1b'} {
			if strings.ContainsRune(l, r) {
				t.Fatalf("%q reached the screen in %q", r, l)
			}
		}
	}
}
