package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Changes names what changed, env and header keys by name, never a value.
func TestChangesNamesKeysNeverValues(t *testing.T) {
	t.Parallel()
	old := Server{Name: "gh", Transport: TransportStdio, Command: "gh-mcp", Args: []string{"serve"}, Enabled: true,
		Env:            map[string]string{"GITHUB_TOKEN": "ghp_old0123456789", "KEEP": "same", "GONE": "bye-value"},
		CallTimeout:    time.Minute,
		StartupTimeout: time.Minute, Source: "/a/.mcp.json"}
	now := old
	now.Env = map[string]string{"GITHUB_TOKEN": "ghp_new0123456789", "KEEP": "same", "LOG_LEVEL": "debug"}
	now.Args = []string{"serve", "--verbose"}
	now.Enabled = false
	now.CallTimeout = 2 * time.Minute
	now.Source = "/b/.mcp.json"
	got := now.Changes(old)
	want := []string{"command line", "env: added LOG_LEVEL; removed GONE; changed GITHUB_TOKEN", "switched off", "timeouts"}
	if !slices.Equal(got, want) {
		t.Fatalf("Changes = %q, want %q", got, want)
	}
	for _, v := range []string{"ghp_", "debug", "bye-value"} {
		if strings.Contains(strings.Join(got, " "), v) {
			t.Errorf("a value shows in %q", got)
		}
	}
	if c := old.Changes(old); len(c) != 0 {
		t.Errorf("an unchanged server has changes %q", c)
	}
	hdr := Server{Transport: TransportHTTP, URL: "https://x", Headers: map[string]string{"Authorization": "Bearer a"}}
	hdr2 := hdr
	hdr2.Headers = map[string]string{"X-Api-Key": "k"}
	if got := hdr2.Changes(hdr); !slices.Equal(got, []string{"headers: added X-Api-Key; removed Authorization"}) {
		t.Errorf("header changes %q", got)
	}
}
