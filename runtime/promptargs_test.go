package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A prompt got without arguments (a client that sent none, through the
// gateway) must not be sent "arguments": null: the reference server
// refuses that ("expected record, received null"), as the schema
// allows only an object or nothing.
func TestGetPromptWithoutArguments(t *testing.T) {
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	c := New(Options{Config: configOf(srv), StopGrace: time.Second})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	enable(t, c)
	raw, err := c.GetPrompt(ctxFor(t, 30*time.Second), "everything", "simple-prompt", nil)
	if err != nil || !strings.Contains(string(raw), "messages") {
		t.Fatalf("simple-prompt without arguments: %s %v", raw, err)
	}
}
