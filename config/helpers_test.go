package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// namedTB renames a test so golden.RequireEqual reads
// testdata/<name>.golden, letting goldens live in folders of our choosing.
type namedTB struct {
	testing.TB
	name string
}

func (n namedTB) Name() string { return n.name }

// fakeEnv is an injected environment, so tests never depend on the host's.
func fakeEnv(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := kv[k]
		return v, ok
	}
}

// render prints servers, warnings and errors in a stable, readable form
// for golden comparison; abs is replaced by "$TESTDATA".
func render(servers []Server, warns []Diagnostic, err error, abs string) string {
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "server %s (%s, %s, enabled=%v) at %s\n", s.Name, s.Transport, s.Scope, s.Enabled, s.Pos)
		if s.Command != "" {
			fmt.Fprintf(&b, "  command: %q %q\n", s.Command, s.Args)
		}
		if s.Cwd != "" {
			fmt.Fprintf(&b, "  cwd: %s\n", s.Cwd)
		}
		if s.URL != "" {
			fmt.Fprintf(&b, "  url: %s\n", s.URL)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			fmt.Fprintf(&b, "  env %s=%q\n", k, s.Env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			fmt.Fprintf(&b, "  header %s: %q\n", k, s.Headers[k])
		}
		fmt.Fprintf(&b, "  timeouts: startup=%s call=%s ping=%s reconnect=%+v\n", s.StartupTimeout, s.CallTimeout, s.PingInterval, s.AutoReconnect)
		if s.NeedsInput != "" {
			fmt.Fprintf(&b, "  %s\n", s.NeedsInput)
		}
	}
	for _, w := range warns {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(&b, "error:\n%s\n", err)
	}
	out := b.String()
	if abs != "" {
		out = strings.ReplaceAll(out, abs, "$TESTDATA")
	}
	return out
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
