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
	"mcpdeck/runtime/auth/authtest"
)

func TestMain(m *testing.M) {
	// Fake servers named in the tests' mcp.json files are this test binary,
	// re-executed; MaybeServe runs them and exits.
	jsonrpctest.MaybeServe()
	maybeConformanceClient() // the conformance suite runs this binary as its client
	authtest.MaybeBrowse()   // tests set $BROWSER to this binary
	// The binaries the tests run keep their state (the era memory, approvals)
	// here unless a test gives them its own directory, never in the home of
	// whoever runs the tests.
	state, err := os.MkdirTemp("", "mcpdeck-cli-state-")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
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

// result is what a run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// runBin runs the built binary with args in dir (may be ""), with env added
// to the environment, and a deadline. Stdin is empty unless given.
func runBin(t testing.TB, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpdeckBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
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
