package config

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// trustChildEnv makes the test binary a child process that records
// approvals instead of running tests: "DIR|PATH1,PATH2,...". It waits for
// stdin to close first, so a test can release many children at once.
const trustChildEnv = "MCPDECK_CONFIG_TEST_TRUST"

func TestMain(m *testing.M) {
	if spec := os.Getenv(trustChildEnv); spec != "" {
		os.Exit(trustChild(spec))
	}
	goleak.VerifyTestMain(m)
}

func trustChild(spec string) int {
	dir, paths, _ := strings.Cut(spec, "|")
	_, _ = io.Copy(io.Discard, os.Stdin)
	ts, err := OpenTrustStore(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, p := range strings.Split(paths, ",") {
		if err := ts.Trust(File{Path: p, Scope: ScopeProject, Hash: "h-" + p}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}
