package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// everythingServer is server-everything on stdio.
func everythingServer(t *testing.T) config.Server {
	node, script := jsonrpctest.Everything(t)
	return config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script}, Enabled: true,
		StartupTimeout: 30 * time.Second, CallTimeout: 20 * time.Second, PingInterval: time.Minute}
}

// startEverything runs the TUI on the real runtime with server-everything,
// MCP on and the server ready.
func startEverything(t *testing.T) *harness {
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{everythingServer(t)}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	return hs
}

// openTool filters the Tools tab down to tool and opens its form.
func (hs *harness) openTool(tool string) {
	hs.keys("2", "tab", "/")
	hs.tm.Type(tool)
	hs.keys("enter", "enter")
	hs.waitText("Call everything › " + tool)
}

// TestOpenLinkOverTheResultOnTheRealRuntime: server-everything's
// get-resource-links answers with three resource_link blocks. o in the
// result viewer shows the chooser in front of the viewer (it used to be
// queued behind it, invisible until the viewer closed); picking a link
// reads the resource and shows it in front; esc returns to the result,
// and esc again closes it. get-resource-reference embeds one resource,
// which o shows at once, over the result too.
func TestOpenLinkOverTheResultOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs := startEverything(t)
	hs.openTool("get-resource-links")
	hs.keys("enter")
	hs.waitText("Result of everything › get-resource-links", "o opens the linked resources")
	hs.keys("o")
	hs.waitText("Open which resource?", "demo://resource/dynamic/text/2")
	hs.keys("j", "enter")
	v := hs.waitText("everything › demo://resource/dynamic/text/2", "Resource 2: This is a plaintext resource")
	if strings.Contains(v, "Open which resource?") || strings.Contains(v, "Result of everything") {
		t.Fatalf("the resource is not the modal in front:\n%s", v)
	}
	hs.keys("esc")
	hs.waitText("Result of everything › get-resource-links", "o opens the linked resources")
	hs.keys("esc")
	hs.waitView("the result closed", func(v string) bool {
		return !strings.Contains(v, "Result of everything")
	})

	// One embedded resource: o opens it at once, in front.
	hs.keys("2", "/")
	for range len("resource-links") {
		hs.keys("backspace")
	}
	hs.tm.Type("resource-reference")
	hs.keys("enter", "enter")
	hs.waitText("Call everything › get-resource-reference")
	hs.keys("enter")
	hs.waitText("Result of everything › get-resource-reference", "o opens the linked resource")
	hs.keys("o")
	hs.waitText("everything › demo://resource/dynamic/text/1", "Resource 1: This is a plaintext resource")
	hs.keys("esc")
	hs.waitText("Result of everything › get-resource-reference")
}

// A link read over the result viewer fails: the viewer of the link says
// so in front, and esc still returns to the result. A result viewer
// closed before its link opens leaves the resource viewer alone on screen.
func TestOpenLinkReturnsToTheResult(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.Contents["test://gone"] = nil // resources/read answers -32002
	rt.CallFunc = func(_ context.Context, req runtime.CallRequest) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "see the link"},
			{Type: "resource_link", URI: "test://gone", Name: "gone"}}}, nil
	}
	hs := start(t, rt, 120, 35)
	hs.keys("j", "2", "tab", "j", "j", "enter")
	hs.waitText("Call everything › echo")
	hs.keys("x", "enter")
	hs.waitText("Result of everything › echo", "see the link")
	hs.keys("o")
	hs.action("resources/read everything test://gone")
	hs.waitText("everything › test://gone", "✗ the read failed")
	hs.keys("esc")
	hs.waitText("Result of everything › echo", "see the link")
	hs.keys("esc")
	hs.waitView("the result closed", func(v string) bool { return !strings.Contains(v, "Result of everything") })
}

// TestBooleanFieldOnTheRealRuntime: server-everything's
// get-annotated-message has an optional boolean, includeImage, defaulting
// to false. Its field cycles false → unset → true, unset drawn as such,
// and true reaches the server: the result has the image.
func TestBooleanFieldOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	hs := startEverything(t)
	hs.openTool("get-annotated-message")
	hs.waitText("‹ error ›") // a required enum starts at its first value
	hs.keys("space", "tab")  // messageType: success
	hs.waitText("‹ success ›", "[ ] false")
	hs.keys("space")
	hs.waitText("[-] unset (left out)")
	hs.keys("space")
	hs.waitText("[x] true")
	hs.keys("enter")
	hs.waitText("Result of everything › get-annotated-message", "Operation completed successfully", "[image] image/png")
}
