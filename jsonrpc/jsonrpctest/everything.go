package jsonrpctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvEverything names the environment variable holding the path of the
// reference server @modelcontextprotocol/server-everything's entry point
// (dist/index.js), as installed by .ci/run into the git-ignored .deps/.
const EnvEverything = "MCPDECK_SERVER_EVERYTHING"

// EverythingPinned is the version of server-everything the tests are written against.
const EverythingPinned = "2026.8.31"

// Everything returns the node executable and the reference server's entry
// point. It looks at $MCPDECK_SERVER_EVERYTHING, then at .deps/ in the module
// root. When it is missing the test is skipped on a developer's machine, but
// fails under CI=true: CI must never pass by skipping the interop tests.
func Everything(t testing.TB) (node, script string) {
	t.Helper()
	script = os.Getenv(EnvEverything)
	if script == "" {
		if root, ok := moduleRoot(); ok {
			candidate := filepath.Join(root, ".deps", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
			if _, err := os.Stat(candidate); err == nil {
				script = candidate
			}
		}
	}
	node, err := exec.LookPath("node")
	if script == "" || err != nil {
		msg := "server-everything is not installed: run `npm install --prefix .deps @modelcontextprotocol/server-everything@" +
			EverythingPinned + "` (as .ci/run does) or set " + EnvEverything
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, script
}

func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
