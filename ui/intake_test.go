package ui

import (
	"strings"
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// The result viewer and the overview of a server that reflects its env
// secret back show it scrubbed: the runtime took it in scrubbed.
func TestReflectedSecretScrubbedInTheViewer(t *testing.T) {
	t.Parallel()
	const secret = "tok-reflected-tui-0123456789ab"
	srv := fakeProcess("echo", jsonrpctest.EchoSecret, config.Reconnect{}, jsonrpctest.WithSecret(secret))
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	var leak string
	hs.p.mu.Lock()
	hs.p.onFrame = func(v string) {
		if strings.Contains(v, secret) && leak == "" {
			leak = v
		}
	}
	hs.p.mu.Unlock()
	hs.keys("m")
	hs.waitText("servers 1/1 ready", "Use the token ••••••")
	hs.keys("2", "tab", "/")
	hs.tm.Type("echo")
	hs.keys("enter", "enter")
	hs.waitText("Call echo › echo")
	hs.tm.Type("hi")
	hs.keys("enter")
	hs.waitText("Result of echo › echo", "hi (token ••••••)")
	hs.p.mu.Lock()
	defer hs.p.mu.Unlock()
	if leak != "" {
		t.Fatalf("a frame showed the secret:\n%s", leak)
	}
}
