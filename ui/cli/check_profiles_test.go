package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/check"
)

// check --profile against real servers: server-everything fits every
// client profile (a grid of PASS); the Go SDK peer served from a recording
// whose echo tool was renamed with a dot and given a 3 KB description
// breaks Claude Code's name rule (FAIL) and its description size (WARN),
// and only renames for Gemini CLI, which allows dots.
func TestCheckProfiles(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	r := runBin(t, "", nil, "", "check", "--stdio", node+" "+script+" stdio", "--profile", "all")
	wantCode(t, r, ExitOK)
	for _, p := range check.Profiles {
		if !strings.Contains(r.stdout, "PASS    profile-"+p.Name) {
			t.Errorf("no PASS for %s:\n%s", p.Name, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "client profiles (limits as of "+check.ProfilesChecked) || !strings.Contains(r.stdout, "CLIENT       tool-name-chars") {
		t.Errorf("no grid:\n%s", r.stdout)
	}

	cfg := fakeConfig(t, "profiles-"+strconv.FormatInt(time.Now().UnixNano(), 36), map[string]jsonrpctest.Mode{"peer": jsonrpctest.GoSDKModern})
	rec := editRecording(t, recordPeer(t, cfg), func(tools []map[string]any) []map[string]any {
		for _, tl := range tools {
			if tl["name"] == "echo" {
				tl["name"], tl["description"] = "text.echo", strings.Repeat("Echoes. ", 400)
			}
		}
		return tools
	})
	r = runBin(t, "", nil, "", "check", "--stdio", mcpdeckBin(t)+" replay "+rec+" --serve --speed 0", "--profile", "claude-code", "--profile", "gemini-cli", "--json")
	var got struct {
		Servers []struct {
			Profiles []check.ProfileResult `json:"profiles"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got.Servers) != 1 || len(got.Servers[0].Profiles) != 2 {
		t.Fatalf("--json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	status := map[string]check.Status{}
	for _, p := range got.Servers[0].Profiles {
		for _, f := range p.Findings {
			status[p.Profile+" "+string(f.Rule)] = f.Status
			if f.Status != check.Pass && !strings.Contains(f.Detail, "text.echo") {
				t.Errorf("%s %s does not name the tool: %s", p.Profile, f.Rule, f.Detail)
			}
		}
	}
	for key, want := range map[string]check.Status{
		"claude-code tool-name-chars": check.Fail, "claude-code description-length": check.Warn,
		"claude-code qualified-name-length": check.Pass, "gemini-cli tool-name-chars": check.Pass,
	} {
		if status[key] != want {
			t.Errorf("%s: %s, want %s", key, status[key], want)
		}
	}
}
