package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// The tool of @modelcontextprotocol/server-basic-vanillajs 2.0.3, as its
// tools/list sends it: both the nested and the deprecated flat key.
const basicTool = `{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}`

func TestToolUIOf(t *testing.T) {
	cases := []struct {
		name                         string
		meta                         string
		ok                           bool
		uri                          string
		model, app, appOnly, problem bool
	}{
		{"ext-apps server", basicTool, true, "ui://get-time/mcp-app.html", true, true, false, false},
		{"no meta", ``, false, "", true, true, false, false},
		{"other meta", `{"com.example/x":1}`, false, "", true, true, false, false},
		{"flat key only", `{"ui/resourceUri":"ui://a"}`, true, "ui://a", true, true, false, false},
		{"app only", `{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`, true, "ui://a", false, true, true, false},
		{"model only", `{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`, true, "ui://a", true, false, false, false},
		{"app only, no resource", `{"ui":{"visibility":["app"]}}`, true, "", false, true, true, false},
		{"not ui scheme", `{"ui":{"resourceUri":"https://x/app.html"}}`, true, "https://x/app.html", true, true, false, true},
		{"uri not a string", `{"ui":{"resourceUri":7}}`, true, "", true, true, false, true},
		{"unknown visibility", `{"ui":{"resourceUri":"ui://a","visibility":["agent"]}}`, true, "ui://a", false, false, false, true},
		{"empty visibility", `{"ui":{"resourceUri":"ui://a","visibility":[]}}`, true, "ui://a", false, false, false, true},
		{"keys disagree", `{"ui":{"resourceUri":"ui://a"},"ui/resourceUri":"ui://b"}`, true, "ui://a", true, true, false, true},
		{"csp on the tool", `{"ui":{"resourceUri":"ui://a","csp":{"connectDomains":["https://x"]}}}`, true, "ui://a", true, true, false, true},
		{"ui not an object", `{"ui":"ui://a"}`, true, "", true, true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui, ok := ToolUIOf(json.RawMessage(c.meta))
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if ui.ResourceURI != c.uri || ui.ModelVisible() != c.model || ui.AppCallable() != c.app || ui.AppOnly() != c.appOnly {
				t.Errorf("got uri %q model %v app %v appOnly %v, want %q %v %v %v", ui.ResourceURI, ui.ModelVisible(), ui.AppCallable(), ui.AppOnly(), c.uri, c.model, c.app, c.appOnly)
			}
			if (len(ui.Problems)+len(ui.Notes) > 0) != c.problem {
				t.Errorf("problems %q notes %q, want some: %v", ui.Problems, ui.Notes, c.problem)
			}
		})
	}
}

func TestResourceUIOf(t *testing.T) {
	ui := ResourceUIOf(json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://api.example.com","wss://rt.example.com"],
		"resourceDomains":["https://*.cdn.example.com","data:"],"frameDomains":["https://www.youtube.com"],
		"baseUriDomains":["https://cdn.example.com"]},"permissions":{"camera":{},"clipboardWrite":{}},"domain":"a9.example.com","prefersBorder":true}}`))
	if len(ui.Problems) > 0 {
		t.Fatalf("problems in a well-formed _meta.ui: %q", ui.Problems)
	}
	want := AppCSP{ConnectDomains: []string{"https://api.example.com", "wss://rt.example.com"}, ResourceDomains: []string{"https://*.cdn.example.com", "data:"},
		FrameDomains: []string{"https://www.youtube.com"}, BaseURIDomains: []string{"https://cdn.example.com"}}
	got, _ := json.Marshal(ui.CSP)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("csp %s, want %s", got, exp)
	}
	if !slices.Equal(ui.Permissions, []string{"camera", "clipboardWrite"}) || ui.Domain != "a9.example.com" || ui.PrefersBorder == nil || !*ui.PrefersBorder {
		t.Errorf("got %+v", ui)
	}

	// Sources that would add directives or keywords are left out, each
	// named; so are lists and permissions the extension does not define.
	bad := ResourceUIOf(json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://ok.example.com","https://x; script-src *","'unsafe-eval'",7],
		"scriptDomains":["https://x"],"resourceDomains":"https://x"},"permissions":{"camera":true,"usb":{}},"prefersBorder":"yes"}}`))
	if !slices.Equal(bad.CSP.ConnectDomains, []string{"https://ok.example.com"}) || len(bad.CSP.ResourceDomains) != 0 {
		t.Errorf("csp kept %+v", bad.CSP)
	}
	for _, want := range []string{`"https://x; script-src *"`, `"'unsafe-eval'"`, "holds 7", "scriptDomains", "resourceDomains is not an array", "permissions.camera is not an object", "permissions.usb", "prefersBorder is not a boolean"} {
		if !slices.ContainsFunc(append(bad.Problems, bad.Notes...), func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("no problem names %s: %q %q", want, bad.Problems, bad.Notes)
		}
	}
	if len(bad.Permissions) != 0 {
		t.Errorf("permissions %q from malformed ones", bad.Permissions)
	}
}

func TestValidCSPSource(t *testing.T) {
	for _, s := range []string{"https://cdn.jsdelivr.net", "https://*.cloudflare.com", "wss://rt.example.com:8443", "http://localhost:3000/path/", "data:", "blob:", "*", "example.com"} {
		if !ValidCSPSource(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", "https://x y", "https://x;default-src *", "'self'", "'unsafe-inline'", "https://a,https://b", "https://x\"", "\nhttps://x"} {
		if ValidCSPSource(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestAppDocumentOf(t *testing.T) {
	html := "<!DOCTYPE html><html><body>hi</body></html>"
	text := `{"contents":[{"uri":"ui://get-time/mcp-app.html","mimeType":"text/html;profile=mcp-app","text":` + quote(html) + `,"_meta":{"ui":{"prefersBorder":false}}}]}`
	doc, err := AppDocumentOf(json.RawMessage(text), "ui://get-time/mcp-app.html")
	if err != nil || string(doc.HTML) != html || doc.UI.PrefersBorder == nil {
		t.Fatalf("text: %v %q %+v", err, doc.HTML, doc.UI)
	}
	blob := `{"contents":[{"uri":"ui://x","mimeType":"text/html; profile=\"mcp-app\"","blob":"` + base64.StdEncoding.EncodeToString([]byte(html)) + `"}]}`
	if doc, err := AppDocumentOf(json.RawMessage(blob), "ui://other"); err != nil || string(doc.HTML) != html {
		t.Fatalf("blob (the only contents): %v %q", err, doc.HTML)
	}
	for name, raw := range map[string]string{
		"plain html":  `{"contents":[{"uri":"ui://x","mimeType":"text/html","text":"<p>"}]}`,
		"no mime":     `{"contents":[{"uri":"ui://x","text":"<p>"}]}`,
		"empty":       `{"contents":[{"uri":"ui://x","mimeType":"text/html;profile=mcp-app"}]}`,
		"bad blob":    `{"contents":[{"uri":"ui://x","mimeType":"text/html;profile=mcp-app","blob":"%%%"}]}`,
		"no contents": `{"contents":[]}`,
		"two others":  `{"contents":[{"uri":"ui://a","mimeType":"text/html;profile=mcp-app","text":"a"},{"uri":"ui://b","mimeType":"text/html;profile=mcp-app","text":"b"}]}`,
	} {
		if _, err := AppDocumentOf(json.RawMessage(raw), "ui://x"); !errors.Is(err, ErrNotApp) {
			t.Errorf("%s: err %v, want ErrNotApp", name, err)
		}
	}
}

func TestClientCapabilitiesUI(t *testing.T) {
	for caps, want := range map[string]bool{
		`{}`: false,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`: true,
		`{"extensions":{"io.modelcontextprotocol/ui":{}}}`:                                          true,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list"]}}}`:             false,
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`:                                       false,
	} {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(caps), &c); err != nil {
			t.Fatal(err)
		}
		if c.UI() != want {
			t.Errorf("%s: UI() = %v", caps, !want)
		}
	}
	var c ClientCapabilities
	c.Extensions = map[string]json.RawMessage{ExtensionUI: UICapability()}
	if !c.UI() {
		t.Error("mcpdeck's own declaration is not read as one")
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
