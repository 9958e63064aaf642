package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An unapproved project file must not make mcpdeck read the files it
// names: before approval, its envFile (here a shadow-like file whose lines
// are not KEY=VALUE) is neither read nor quoted. After approval, loading
// again reads it.
func TestUnapprovedProjectEnvFileIsNotRead(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const shadow = "root:$6$s3cr3tsalt$hash:19000:0:99999:7:::"
	layout(t, w.project, map[string]string{
		".mcp.json":   `{"mcpServers": {"p": {"command": "p", "envFile": "secrets.env"}}}`,
		"secrets.env": shadow + "\n",
	})
	opts := w.opts()
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("Load before approval = %v, want no error (the envFile must not even be read)", err)
	}
	if strings.Contains(err2str(err), shadow) {
		t.Fatal("the envFile's content was echoed before approval")
	}
	s, _ := cfg.Server("p")
	if !s.Unapproved || len(s.Env) != 0 || s.EnvFile != filepath.Join(w.project, "secrets.env") {
		t.Fatalf("before approval: Unapproved=%v Env=%v EnvFile=%q; want unapproved, no env, the path shown", s.Unapproved, s.Env, s.EnvFile)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Message, "is not read until this project file is approved") {
		t.Errorf("warnings = %v, want one saying the envFile waits for approval", cfg.Warnings)
	}
	pending := cfg.Unapproved()
	if len(pending) != 1 || pending[0].Path != filepath.Join(w.project, ".mcp.json") {
		t.Fatalf("Unapproved() = %+v, want the project file", pending)
	}

	ts, err := OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Trust(pending[0]); err != nil {
		t.Fatal(err)
	}
	opts.Approved = ts.Trusted
	_, err = Load(opts)
	var errs Errors
	if !errors.As(err, &errs) || !strings.Contains(err.Error(), "is not KEY=VALUE") {
		t.Fatalf("Load after approval = %v, want the envFile read (and its bad line reported)", err)
	}

	// A good envFile is merged once the file is approved.
	layout(t, w.project, map[string]string{"secrets.env": "TOKEN=abc\n"})
	cfg, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := cfg.Server("p"); s.Unapproved || s.Env["TOKEN"] != "abc" {
		t.Fatalf("after approval: Unapproved=%v Env=%v, want the envFile merged", s.Unapproved, s.Env)
	}
}

// A missing or unreadable envFile is not even looked at before approval,
// so its path cannot be used to probe the file system either.
func TestUnapprovedProjectEnvFileNotStatted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{
		".mcp.json": `{"mcpServers": {"p": {"command": "p", "envFile": "/nonexistent/dir/x.env"}}}`,
	})
	if _, err := Load(w.opts()); err != nil {
		t.Fatalf("Load = %v, want no error before approval", err)
	}
}

// Before approval nothing of the environment is expanded, so neither a
// diagnostic nor the definition shown for approval can carry it: "url":
// "${AWS_SECRET}" must not print the secret to whoever runs mcpdeck in a
// cloned repository. The url is checked once approved and expanded.
func TestUnapprovedDiagnosticsDoNotQuoteExpandedValues(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env["AWS_SECRET"] = "wJalrXUtnFEMI-K7MDENG"
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {"p": {"url": "${AWS_SECRET}"}}}`})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatalf("before approval: %v, want the url kept as written, unchecked", err)
	}
	if s, _ := cfg.Server("p"); s.URL != "${AWS_SECRET}" {
		t.Fatalf("before approval the url is %q, want it as written", s.URL)
	}
	ts, err := OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Trust(cfg.Unapproved()[0]); err != nil {
		t.Fatal(err)
	}
	opts := w.opts()
	opts.Approved = ts.Trusted
	if _, err = Load(opts); err == nil || !strings.Contains(err.Error(), "is not an http:// or https:// URL") {
		t.Fatalf("after approval: error = %v, want the expanded url refused", err)
	}
}

func TestNonProjectScopesNeedNoApproval(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.userDir, map[string]string{
		"mcp.json": `{"mcpServers": {"u": {"command": "u", "envFile": "u.env"}}}`,
		"u.env":    "A=1\n",
	})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := cfg.Server("u"); s.Unapproved || s.Env["A"] != "1" || len(cfg.Unapproved()) != 0 {
		t.Fatalf("user scope server: %+v, want approved with its envFile read", s)
	}
}

func err2str(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The approval of a changed project file names what changed in the file:
// the definition it replaces was read approved (its ${env:…} expanded) and
// the new one unapproved (kept as written), and a reference left alone is
// no change, while one that now names another variable is.
func TestApprovalChangesCompareWhatTheFileWrites(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env["GITHUB_TOKEN"], w.env["REMOTE_AUTH"], w.env["HOST"] = "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "sk-live-abcdef0123456789abcdef", "example.com"
	file := `{"mcpServers": {
		"gh": {"command": "node", "args": ["server.js", "--host", "${env:HOST}"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "LOG_LEVEL": "debug"}},
		"remote": {"url": "https://${env:HOST}/mcp", "headers": {"Authorization": "Bearer ${env:REMOTE_AUTH}"}}}}`
	layout(t, w.project, map[string]string{".mcp.json": file})
	opts := w.opts()
	ts, err := OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Trust(cfg.Unapproved()[0]); err != nil {
		t.Fatal(err)
	}
	opts.Approved = ts.Trusted
	applied, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := applied.Server("gh"); s.Unapproved || s.Env["GITHUB_TOKEN"] != w.env["GITHUB_TOKEN"] {
		t.Fatalf("approved read: Unapproved=%v, want the token expanded", s.Unapproved)
	}

	changed := strings.Replace(file, `"debug"`, `"info"`, 1)
	changed = strings.Replace(changed, `"${env:GITHUB_TOKEN}"`, `"${env:AWS_SECRET_ACCESS_KEY}"`, 1)
	layout(t, w.project, map[string]string{".mcp.json": changed})
	pending, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"gh": {"env: changed GITHUB_TOKEN, LOG_LEVEL"}, "remote": nil} {
		was, _ := applied.Server(name)
		now, _ := pending.Server(name)
		if !now.Unapproved {
			t.Fatalf("%s: the changed file was read approved", name)
		}
		if got := now.Changes(was); !slices.Equal(got, want) {
			t.Errorf("%s: Changes = %q, want %q", name, got, want)
		}
	}
}
