package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

func TestMain(m *testing.M) {
	// Fake servers named in the tests' mcp.json files are this test binary,
	// re-executed; MaybeServe runs them and exits.
	jsonrpctest.MaybeServe()
	maybeConformanceClient() // the conformance suite runs this binary as its client
	authtest.MaybeBrowse()   // tests set $BROWSER to this binary
	// Nothing a test runs reads or writes the state, cache, configuration
	// or keyring of whoever runs the tests: the in-process commands keep
	// theirs here, and every binary a test runs its own test's (testEnv).
	state, err := os.MkdirTemp("", "mcpdeck-cli-state-")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	// The go command keeps its build cache under XDG_CACHE_HOME unless
	// GOCACHE says where: the build of the binary (mcpdeckBin) keeps the
	// user's, or it would compile everything afresh.
	if os.Getenv("GOCACHE") == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(dir, "go-build"))
		}
	}
	for k, sub := range map[string]string{"XDG_STATE_HOME": "state", "XDG_CACHE_HOME": "cache", "XDG_CONFIG_HOME": "config"} {
		os.Setenv(k, filepath.Join(state, sub))
	}
	os.Setenv(auth.StorageEnv, "file")
	code := m.Run()
	os.RemoveAll(state)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// mcpdeckBin builds the mcpdeck binary once per test run, for end-to-end
// tests that run it as a subprocess, as a user would.
func mcpdeckBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mcpdeck-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcpdeck")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("building mcpdeck: %v\n%s", binErr, binPath)
	}
	return binPath
}

// testDirs holds each test's own directory for the state and the cache of
// the binaries it runs (testEnv), by test.
var testDirs sync.Map // testing.TB → string

// testStateDir is the test's own directory for what mcpdeck keeps between
// runs: its era memory (eras.json), tool decisions, approvals, tokens and
// the names cache. A test that starts the same server command as another
// must not find that test's remembered era, nor leave its own behind.
func testStateDir(t testing.TB) string {
	t.Helper()
	if d, ok := testDirs.Load(t); ok {
		return d.(string)
	}
	d, loaded := testDirs.LoadOrStore(t, t.TempDir())
	if !loaded {
		t.Cleanup(func() { testDirs.Delete(t) })
	}
	return d.(string)
}

// testEnv is the environment of an mcpdeck the test runs: the test's own
// state and cache directories (testStateDir), then env, whose settings
// win (a test that shares a state directory between runs on purpose).
func testEnv(t testing.TB, env ...string) []string {
	t.Helper()
	dir := testStateDir(t)
	out := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	return append(out, env...)
}

// mcpdeckCmd is the built binary with args, in the test's own environment
// (testEnv).
func mcpdeckCmd(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(mcpdeckBin(t), args...)
	cmd.Env = testEnv(t)
	return cmd
}

// binCommand is the built binary with args, killed timeout after the
// binary is built: the first test to need it waits for the build (over a
// minute on a loaded machine with a cold build cache), and that wait must
// not count against the deadline of the command it runs. A deadline set
// before mcpdeckBin made TestAppOpen fail under load with "context
// deadline exceeded" from its first exec.
func binCommand(t testing.TB, timeout time.Duration, args ...string) (*exec.Cmd, context.CancelFunc) {
	t.Helper()
	bin := mcpdeckBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	return exec.CommandContext(ctx, bin, args...), cancel
}

// result is what a run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// runBin runs the built binary with args in dir (may be ""), with env added
// to the environment, and a deadline. Stdin is empty unless given.
func runBin(t testing.TB, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd, cancel := binCommand(t, 2*time.Minute, args...)
	defer cancel()
	cmd.Dir = dir
	cmd.Env = testEnv(t, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running mcpdeck %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}
