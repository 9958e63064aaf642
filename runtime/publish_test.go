package runtime

import (
	"strings"
	"testing"

	"mcpdeck/config"
)

// TestPublishedTargetIsRedactedAndFollowsTheConfig: the target a
// publication shows hides the server's secrets, and a new definition
// (configure while off) shows the new command, not the one redacted first.
func TestPublishedTargetIsRedactedAndFollowsTheConfig(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	server := func(args ...string) config.Server {
		return config.Server{Name: "s", Transport: config.TransportStdio, Enabled: true,
			Command: "node", Args: args, Env: map[string]string{"API_KEY": secret}}
	}
	m := newMachine(&config.Config{Servers: []config.Server{server("a.js", "--token", secret)}})
	got := m.servers["s"].snapshot().Target
	if strings.Contains(got, secret) || !strings.Contains(got, "a.js") || !strings.Contains(got, config.RedactedValue) {
		t.Fatalf("target %q: want a.js with the token redacted", got)
	}
	m.configure(&config.Config{Servers: []config.Server{server("b.js", "--token", secret)}}, nil)
	got = m.servers["s"].snapshot().Target
	if strings.Contains(got, secret) || !strings.Contains(got, "b.js") {
		t.Fatalf("target after configure %q: want b.js with the token redacted", got)
	}
}
