package jsonrpctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// AppsPinned is the version of @modelcontextprotocol/server-basic-vanillajs,
// the MCP Apps example server (one tool, get-time, whose app calls it
// again from its page), the apps tests run.
const AppsPinned = "2.0.3"

// EnvChromium names the environment variable that points the browser
// tests at a Chromium other than the one on PATH.
const EnvChromium = "MCPDECK_CHROMIUM"

// AppsServer returns node and the entry point of the pinned MCP Apps
// example server, from $MCPDECK_NODE_MODULES or .deps/node_modules. Run it
// with --stdio. Missing, the test is skipped, or fails under CI=true.
func AppsServer(t testing.TB) (node, script string) {
	t.Helper()
	node, modules, _ := Node(t)
	script = filepath.Join(modules, "@modelcontextprotocol", "server-basic-vanillajs", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		msg := "@modelcontextprotocol/server-basic-vanillajs@" + AppsPinned + " is not installed in " + modules +
			": run `mkdir -p .deps && cp .ci/npm/package*.json .deps/ && npm ci --prefix .deps` (as .ci/run does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, script
}

// Chromium returns a Chromium (or Chrome) executable for the browser
// tests: $MCPDECK_CHROMIUM, else chromium, chromium-browser or
// google-chrome on PATH. Where there is none the test is skipped, saying
// so, except under CI=true, where .ci/run installs Debian's chromium: a
// missing browser there is a failure, not a skip.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvChromium); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium to run the MCP Apps browser test: install one (Debian: apt-get install -y chromium, as .ci/run does) or set " + EnvChromium
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// ChromiumFlags are the flags a test starts Chromium with on this kind of
// machine: headless, as root without the setuid sandbox, and without the
// background connections a closed network refuses.
var ChromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio",
}

// AppsBroken is the Normal server plus MCP Apps tools with the mistakes
// check must name: "show" links a ui:// resource the server cannot read
// (a dangling resourceUri), "chart"'s resource declares a CSP origin that
// would inject a directive, and "chart"'s description tells the model to
// call "refresh", a tool only apps may call. "summary" is for models only:
// its app may not call it.
const AppsBroken Mode = "apps-broken"

// appHTML is the document of the fake app resources.
const appHTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>chart</title></head><body><p>chart</p></body></html>`

// appTools adds the apps tools of mode.
func appTools(mode Mode, tools []*tool) []*tool {
	if mode != AppsBroken {
		return tools
	}
	return append(tools,
		&tool{name: "show", description: "Shows the data in an interactive view.", meta: json.RawMessage(`{"ui":{"resourceUri":"ui://fake/missing.html"}}`), run: runOK},
		&tool{name: "chart", description: "Draws a chart of the data; call refresh to update it.", meta: json.RawMessage(`{"ui":{"resourceUri":"ui://fake/chart.html"}}`), run: runOK},
		&tool{name: "refresh", description: "Reloads the chart's data.", meta: json.RawMessage(`{"ui":{"resourceUri":"ui://fake/chart.html","visibility":["app"]}}`), run: runOK},
		&tool{name: "summary", description: "Summarises the data for the model.", meta: json.RawMessage(`{"ui":{"resourceUri":"ui://fake/chart.html","visibility":["model"]}}`), run: runOK},
	)
}

// readAppResource answers resources/read of the apps modes; false when
// the mode has none.
func (s *server) readAppResource(c *call) bool {
	if s.mode != AppsBroken {
		return false
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = unmarshalParams(c.params, &p)
	if p.URI != "ui://fake/chart.html" {
		s.fail(c, -32002, "resource not found: "+p.URI)
		return true
	}
	s.reply(c, map[string]any{"contents": []any{map[string]any{
		"uri": p.URI, "mimeType": "text/html;profile=mcp-app", "text": appHTML,
		"_meta": map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"https://api.example.com; script-src *"}}}},
	}}})
	return true
}
