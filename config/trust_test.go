package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestTrustStoreRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "mcpdeck")
	ts, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := File{Path: "/p/.mcp.json", Scope: ScopeProject, Hash: "aaaa"}
	if ts.Trusted(f) {
		t.Fatal("a fresh store trusts a project file")
	}
	if _, err := os.Stat(filepath.Join(dir, trustFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opening the store created a file: %v", err)
	}
	if err := ts.Trust(f); err != nil {
		t.Fatal(err)
	}
	if !ts.Trusted(f) {
		t.Fatal("not trusted right after Trust")
	}
	reopened, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reopened.Trusted(f) {
		t.Fatal("approval not remembered across opens")
	}
	changed := f
	changed.Hash = "bbbb"
	if reopened.Trusted(changed) {
		t.Fatal("an edited file is still trusted")
	}
	info, err := os.Stat(reopened.Path())
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode = %v, want 0600", info.Mode().Perm())
	}
}

func TestTrustStoreOtherScopesNeedNoApproval(t *testing.T) {
	t.Parallel()
	ts, err := OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Scope{ScopeExplicit, ScopeUser, ScopeDefault} {
		if !ts.Trusted(File{Path: "x", Scope: s}) {
			t.Errorf("scope %s needs approval", s)
		}
	}
}

func TestTrustStoreMergesConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	fa := File{Path: "/a/.mcp.json", Scope: ScopeProject, Hash: "1"}
	fb := File{Path: "/b/.mcp.json", Scope: ScopeProject, Hash: "2"}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, f := range []File{fa, {Path: "/c/.mcp.json", Scope: ScopeProject, Hash: "3"}} {
		wg.Go(func() { errs <- a.Trust(f) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Trust(fb); err != nil {
		t.Fatal(err)
	}
	c, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Trusted(fa) || !c.Trusted(fb) {
		t.Fatal("an approval written by another store was lost")
	}
}

func TestTrustStoreCorruptFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, trustFileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenTrustStore(dir)
	if !errors.Is(err, ErrTrustStore) {
		t.Fatalf("error = %v, want ErrTrustStore", err)
	}
}

func TestConfigUntrusted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{
		".mcp.json": `{"mcpServers": {"p": {"command": "p"}}}`,
		"mcp.json":  `{"mcpServers": {}}`,
	})
	layout(t, w.userDir, map[string]string{"mcp.json": `{"mcpServers": {"u": {"command": "u"}}}`})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	untrusted := cfg.Untrusted(ts)
	if len(untrusted) != 1 || untrusted[0].Path != filepath.Join(w.project, ".mcp.json") {
		t.Fatalf("Untrusted = %+v, want only the project file that defines servers", untrusted)
	}
	if err := ts.Trust(untrusted[0]); err != nil {
		t.Fatal(err)
	}
	if got := cfg.Untrusted(ts); len(got) != 0 {
		t.Fatalf("Untrusted after Trust = %+v", got)
	}
	// Editing the file asks again.
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {"p": {"command": "evil"}}}`})
	cfg, err = Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Untrusted(ts); len(got) != 1 {
		t.Fatalf("an edited project file is trusted: %+v", got)
	}
}

func TestDefaultStateDir(t *testing.T) {
	x := t.TempDir()
	t.Setenv("XDG_STATE_HOME", x)
	got, err := DefaultStateDir()
	if err != nil || got != filepath.Join(x, "mcpdeck") {
		t.Fatalf("DefaultStateDir() = %q, %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/ada")
	got, err = DefaultStateDir()
	if err != nil || got != "/home/ada/.local/state/mcpdeck" {
		t.Fatalf("DefaultStateDir() = %q, %v", got, err)
	}
}

// TestTrustStoreParallelProcesses approves files from 20 processes released
// at once, as 20 parallel "--trust-project" runs would; every approval must
// survive. Without a lock across processes most of them were lost.
func TestTrustStoreParallelProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const procs, each = 20, 5
	var want []string
	var cmds []*exec.Cmd
	var gates []io.WriteCloser
	for i := range procs {
		var paths []string
		for j := range each {
			paths = append(paths, fmt.Sprintf("/p%d/f%d/.mcp.json", i, j))
		}
		want = append(want, paths...)
		cmd := exec.Command(exe, "-test.run=^$")
		// No second's sleep at exit under -race: the test waits for each.
		cmd.Env = append(os.Environ(), trustChildEnv+"="+dir+"|"+strings.Join(paths, ","), "GORACE=atexit_sleep_ms=0")
		cmd.Stderr = new(strings.Builder)
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, gates = append(cmds, cmd), append(gates, gate)
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
	}
	for _, g := range gates {
		g.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, cmd.Stderr)
		}
	}
	ts, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, p := range want {
		if !ts.Trusted(File{Path: p, Scope: ScopeProject, Hash: "h-" + p}) {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d approvals written by %d parallel processes were lost", lost, len(want), procs)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".trust.json.mcpdeck-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// Content approved before is not asked about again: an operator who
// approved C, then D, and restored C (a branch switched back, an edit
// undone) is not asked about C; only the last maxEarlier+1 contents are
// kept, and content never approved is always asked. Before, only the
// newest approval counted, and C was asked about again.
func TestTrustStoreRemembersEarlierApprovals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ts, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := func(hash string) File { return File{Path: "/p/.mcp.json", Scope: ScopeProject, Hash: hash} }
	trust := func(hash string) {
		t.Helper()
		if err := ts.Trust(at(hash)); err != nil {
			t.Fatal(err)
		}
	}
	trust("C")
	if ts.Trusted(at("D")) {
		t.Fatal("content never approved is trusted")
	}
	trust("D")
	reopened, err := OpenTrustStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"C", "D"} {
		if !reopened.Trusted(at(h)) {
			t.Errorf("approved content %s is asked about again", h)
		}
	}
	if reopened.Trusted(at("E")) || reopened.Trusted(at("")) {
		t.Error("content never approved is trusted")
	}
	if reopened.Trusted(File{Path: "/q/.mcp.json", Scope: ScopeProject, Hash: "C"}) {
		t.Error("content approved for one file is trusted in another")
	}
	// Approving C again (it was earlier) keeps D, and each content once.
	trust("C")
	if !ts.Trusted(at("D")) || !ts.Trusted(at("C")) || len(ts.approved["/p/.mcp.json"].Earlier) != 1 {
		t.Errorf("approving earlier content again: %+v", ts.approved["/p/.mcp.json"])
	}
	// Bounded: the oldest falls out.
	for _, h := range []string{"1", "2", "3", "4", "5"} {
		trust(h)
	}
	if ts.Trusted(at("D")) || ts.Trusted(at("C")) {
		t.Errorf("more than %d earlier contents are kept: %+v", maxEarlier, ts.approved["/p/.mcp.json"])
	}
	for _, h := range []string{"1", "2", "3", "4", "5"} {
		if !ts.Trusted(at(h)) {
			t.Errorf("one of the last %d approvals, %s, is asked about again", maxEarlier+1, h)
		}
	}
}
