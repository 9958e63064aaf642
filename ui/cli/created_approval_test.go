package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A project file mcpdeck created at the operator's command is approved,
// as one it changed stays approved: export --to vscode --scope project
// wrote .vscode/mcp.json and the next servers exited 2 until
// --trust-project. Every command that writes a project file goes through
// saveDoc; export and add (creating .mcp.json) are checked here, import
// is the same batch as export.
func TestCreatedProjectFileIsApproved(t *testing.T) {
	w := newConfigWorld(t)
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"echo": srvFake(jsonrpctest.Normal)}})
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, w.userFile(), string(data))

	code, stdout, stderr := w.run(t, "export", "--to", "vscode", "--scope", "project")
	vscode := filepath.Join(w.project, ".vscode", "mcp.json")
	if code != ExitOK || !strings.Contains(stdout, vscode) || !strings.Contains(stderr, vscode+" is approved") {
		t.Fatalf("export: exit %d\n%s%s", code, stdout, stderr)
	}
	ts, err := config.OpenTrustStore("")
	if err != nil {
		t.Fatal(err)
	}
	if !ts.Trusted(config.File{Path: vscode, Scope: config.ScopeProject, Hash: configFileHash(t, vscode)}) {
		t.Errorf("the file export created is not approved")
	}
	if code, _, stderr := w.run(t, "servers", "--json"); code != ExitOK {
		t.Fatalf("servers after export: exit %d, want 0 (no --trust-project needed):\n%s", code, stderr)
	}

	// add --scope project creating .mcp.json: the same.
	w = newConfigWorld(t)
	code, _, stderr = w.run(t, "add", "demo", "--scope", "project", "--", "mcpdeck", "demo-server")
	mcpJSON := filepath.Join(w.project, ".mcp.json")
	if code != ExitOK || !strings.Contains(stderr, mcpJSON+" is approved") {
		t.Fatalf("add: exit %d %s", code, stderr)
	}
	if ts, _ = config.OpenTrustStore(""); !ts.Trusted(config.File{Path: mcpJSON, Scope: config.ScopeProject, Hash: configFileHash(t, mcpJSON)}) {
		t.Errorf("the file add created is not approved")
	}

	// A file someone else wrote is not approved by mcpdeck adding to it.
	if err := os.Remove(mcpJSON); err != nil {
		t.Fatal(err)
	}
	w.write(t, mcpJSON, `{"mcpServers": {}}`)
	if code, _, stderr := w.run(t, "add", "x", "--scope", "project", "--", "cmd"); code != ExitOK || strings.Contains(stderr, "approved") {
		t.Fatalf("add to an unapproved file: exit %d %s", code, stderr)
	}
	if ts, _ = config.OpenTrustStore(""); ts.Trusted(config.File{Path: mcpJSON, Scope: config.ScopeProject, Hash: configFileHash(t, mcpJSON)}) {
		t.Error("an unapproved project file became approved")
	}
}
