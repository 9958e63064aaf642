package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// rawControl names the first character of frame a terminal would act on:
// with the ASCII colour profile the UI itself writes no escape at all, so
// any ESC, BEL, CR, C1 or bidi control came from a server.
func rawControl(frame string) (string, bool) {
	for i, r := range frame {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			from := max(i-30, 0)
			return fmt.Sprintf("%U at byte %d: …%q…", r, i, frame[from:min(i+30, len(frame))]), true
		}
	}
	return "", false
}

// TestHostileServerCannotControlTheTerminal runs the real runtime against
// a server that puts escape sequences into everything it says, walks every
// place that shows it (servers, overview, tools, the call form, a result,
// an error, notifications, logs, traffic, requests) and checks that no
// frame ever carried a raw control character, while the escapes are shown
// as visible text.
func TestHostileServerCannotControlTheTerminal(t *testing.T) {
	t.Parallel()
	path, args, env := jsonrpctest.Command(jsonrpctest.HostileEscapes)
	srv := config.Server{
		Name: "hostile", Transport: config.TransportStdio, Command: path, Args: args, Env: envMap(env), Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second, PingInterval: time.Second,
	}
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}, StopGrace: time.Second})
	t.Cleanup(func() { rt.Shutdown(context.Background()) })

	frames, leaks := 0, []string{}
	p := &probe{m: newModel(Options{Runtime: rt}.withDefaults()), signal: make(chan struct{}, 1)}
	p.onFrame = func(v string) {
		frames++
		if where, bad := rawControl(v); bad && len(leaks) < 5 {
			leaks = append(leaks, where)
		}
	}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(140, 40))
	hs := &harness{t: t, tm: tm, p: p}
	hs.detach = Attach(rt, tm.Send)
	t.Cleanup(hs.stop)

	visible := `\x1b]0;pwned\x07`
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.waitText("hostile"+visible, "Instructions "+visible) // overview: serverInfo, instructions
	hs.keys("4")
	hs.waitText("[log" + visible) // a log notification
	hs.keys("5")
	hs.waitText("stderr " + visible) // a stderr line
	hs.keys("6")
	hs.waitText("→ request", "← result") // traffic
	hs.keys("2")
	hs.waitText(`evil\x1b[31m_name`) // a tool's name
	hs.keys("/", "s", "h", "o", "u", "t", "enter", "enter")
	hs.waitText("Call hostile › shout")
	hs.keys("enter")
	hs.waitText("Result of hostile › shout", "result "+visible)
	hs.keys("esc", "2", "/", "backspace", "backspace", "backspace", "backspace", "backspace", "r", "p", "c", "enter", "enter")
	hs.waitText("Call hostile › rpc_fail")
	hs.keys("enter")
	hs.waitText("internal failure " + visible)
	hs.keys("esc", "2", "/", "backspace", "backspace", "backspace", "e", "c", "h", "o", "enter", "enter")
	hs.waitText("Call hostile › echo", `mode\x1b]0;pwned`)
	hs.keys("tab")
	hs.waitText("Text to echo. " + visible)
	hs.keys("esc")

	hs.p.mu.Lock()
	n, found := frames, append([]string(nil), leaks...)
	hs.p.mu.Unlock()
	if len(found) > 0 {
		t.Fatalf("%d of the frames carried raw control characters from the server, first ones:\n%s", len(found), strings.Join(found, "\n"))
	}
	if n < 10 {
		t.Fatalf("only %d frames were checked", n)
	}
}

// envMap turns KEY=VALUE pairs into a map.
func envMap(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
