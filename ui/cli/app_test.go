//go:build unix

package cli

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// srvApps is the pinned MCP Apps example server, on stdio.
func srvApps(t *testing.T) map[string]any {
	node, script := jsonrpctest.AppsServer(t)
	return map[string]any{"command": node, "args": []string{script, "--stdio"}}
}

// TestAppOpen runs mcpdeck app open on the MCP Apps example server: it
// calls the tool, prints a one-time link to the app's page on stdout,
// hands it to $BROWSER, serves the page once, and on ctrl+c stops the
// page and the server and exits 0.
func TestAppOpen(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"basic": srvApps(t)})
	opened := filepath.Join(h.dir, "browser-url")
	browser := filepath.Join(h.dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > "+opened+".tmp && mv "+opened+".tmp "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "BROWSER="+browser)
	r := h.start(t, "app", "open", "basic", "get-time")
	link := r.waitLine(t, false, "the link", func(l string) bool { return strings.HasPrefix(l, "http://127.0.0.1:") })
	r.waitLine(t, true, "the app is live", func(l string) bool { return strings.Contains(l, "the app is live; ctrl+c stops it") })

	// $BROWSER was given the link (it runs on its own: wait for its file).
	deadline := time.Now().Add(30 * time.Second)
	var got []byte
	for time.Now().Before(deadline) {
		if got, _ = os.ReadFile(opened); len(got) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond) // the browser command writes its file in its own time
	}
	if strings.TrimSpace(string(got)) != link {
		t.Errorf("$BROWSER was given %q, want %q", got, link)
	}

	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "/static/host.js") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the link served %s, CSP %q:\n%s", resp.Status, resp.Header.Get("Content-Security-Policy"), body)
	}
	if again, err := http.Get(link); err != nil || again.StatusCode != http.StatusForbidden {
		t.Errorf("the link opened twice: %v %v", again.Status, err)
	} else {
		again.Body.Close()
	}

	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Errorf("exit code %d after ctrl+c, want 0; stderr:\n%s", code, strings.Join(r.seenErr, "\n"))
	}
	u, _ := url.Parse(link)
	if resp, err := http.Get("http://" + u.Host + "/static/host.js"); err == nil {
		resp.Body.Close()
		t.Errorf("the app's port still answers after mcpdeck stopped: %s", resp.Status)
	}
}

// TestAppOpenNoApp: a tool without _meta.ui.resourceUri is refused before
// it is called, with what to do instead.
func TestAppOpenNoApp(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"fake": srvFake(jsonrpctest.Normal)})
	res := h.run(t, "", "app", "open", "fake", "echo", `{"text":"hi"}`)
	if res.code != ExitUsage || !strings.Contains(res.stderr, `tool "echo" of server "fake" has no MCP App`) || !strings.Contains(res.stderr, "mcpdeck call") {
		t.Errorf("code %d, stderr:\n%s", res.code, res.stderr)
	}
	if res.stdout != "" {
		t.Errorf("stdout %q", res.stdout)
	}
}

// TestToolsMarksApps: tools has an APP column when a server has apps, and
// a tool's detail shows its resource, visibility, CSP and permissions (a
// malformed origin named), or why the resource cannot be read.
func TestToolsMarksApps(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"fake": srvFake(jsonrpctest.AppsBroken)})
	res := h.run(t, "", "tools", "fake")
	if res.code != 0 {
		t.Fatalf("tools: code %d\n%s", res.code, res.stderr)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(res.stdout, "\n") {
		if f := strings.Fields(l); len(f) >= 5 { // SERVER TOOL SWITCH TOKENS APP
			rows[f[1]] = f[4]
		}
	}
	if rows["TOOL"] != "APP" || rows["refresh"] != "app-only" || rows["chart"] != "app" || rows["echo"] != "-" {
		t.Errorf("APP column: %v\n%s", rows, res.stdout)
	}
	chart := h.run(t, "", "tools", "fake", "chart")
	for _, want := range []string{"── MCP App", "resource     ui://fake/chart.html", `visibility   ["model","app"] (default)`,
		"document     text/html;profile=mcp-app", `connectDomains holds "https://api.example.com; script-src *"`, "permissions  none asked for"} {
		if !strings.Contains(chart.stdout, want) {
			t.Errorf("chart's detail lacks %q:\n%s", want, chart.stdout)
		}
	}
	refresh := h.run(t, "", "tools", "fake", "refresh")
	if !strings.Contains(refresh.stdout, `visibility   ["app"]: app-only: models never see it`) {
		t.Errorf("refresh's detail:\n%s", refresh.stdout)
	}
	show := h.run(t, "", "tools", "fake", "show")
	if !strings.Contains(show.stdout, "not readable:") || !strings.Contains(show.stdout, "resource not found: ui://fake/missing.html") {
		t.Errorf("show's detail:\n%s", show.stdout)
	}
}
