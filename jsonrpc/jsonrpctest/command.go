package jsonrpctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// noTestsArg makes a re-executed test binary run no tests, so the command still does
// nothing harmful in a package whose TestMain forgot to call MaybeServe.
const noTestsArg = "-test.run=^$"

// cmdOpts collects what the Options add to a fake server's environment.
type cmdOpts struct {
	env [][2]string // key, value; later entries win
}

// Option adjusts the command Command returns.
type Option func(*cmdOpts)

// WithEnv adds KEY=VALUE to the fake server's environment, replacing any inherited value.
func WithEnv(key, value string) Option {
	return func(o *cmdOpts) { o.env = append(o.env, [2]string{key, value}) }
}

// WithSize sets the padding of the Oversized answer in bytes (MCPDECK_FAKE_SIZE).
func WithSize(n int64) Option { return WithEnv(EnvSize, strconv.FormatInt(n, 10)) }

// WithDelay sets how long SlowInit delays initialize (MCPDECK_FAKE_DELAY).
func WithDelay(d time.Duration) Option { return WithEnv(EnvDelay, d.String()) }

// WithCount sets how many notifications Flood sends after initialization (MCPDECK_FAKE_COUNT).
func WithCount(n int) Option { return WithEnv(EnvCount, strconv.Itoa(n)) }

// WithSecret sets FAKE_SECRET, the value SecretLeak leaks into a tool description.
func WithSecret(secret string) Option { return WithEnv(EnvSecret, secret) }

// MaybeServe runs the fake server named by MCPDECK_FAKE_SERVER on stdin and stdout and
// exits the process with its status; without the variable it returns at once. Call it
// first thing in TestMain, before flags are parsed or tests run.
func MaybeServe() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	os.Exit(serve(Mode(mode)))
}

// Command returns how to start a fake server in mode: the running test binary (an
// absolute path, so a command run from another working directory still finds it),
// arguments that run no tests, and the current environment plus ServerEnv's variables.
func Command(mode Mode, opts ...Option) (path string, args []string, env []string) {
	vars := ServerEnv(mode, opts...)
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		if _, overridden := vars[key]; !overridden {
			env = append(env, kv)
		}
	}
	for _, kv := range orderedEnv(mode, opts) {
		env = append(env, kv[0]+"="+kv[1])
	}
	return selfPath(), []string{noTestsArg}, env
}

// ServerEnv returns only the variables a fake server in mode needs (the mode, GORACE
// and the options), for tests that write the server into an mcp.json "env" block.
func ServerEnv(mode Mode, opts ...Option) map[string]string {
	vars := make(map[string]string)
	for _, kv := range orderedEnv(mode, opts) {
		vars[kv[0]] = kv[1]
	}
	return vars
}

// orderedEnv keeps the last value of each key, in first-seen order, so Command's
// environment never carries a key twice.
func orderedEnv(mode Mode, opts []Option) [][2]string {
	o := cmdOpts{env: [][2]string{{EnvMode, string(mode)}, {"GORACE", raceOptions()}}}
	for _, opt := range opts {
		opt(&o)
	}
	var out [][2]string
	index := make(map[string]int)
	for _, kv := range o.env {
		if i, seen := index[kv[0]]; seen {
			out[i] = kv
			continue
		}
		index[kv[0]] = len(out)
		out = append(out, kv)
	}
	return out
}

// raceOptions turns off the race detector's one-second sleep at exit: under -race a
// fake server would otherwise outlive a closed stdin by a second, long enough to push
// every stop sequence under test into its SIGTERM branch. Options in GORACE survive.
func raceOptions() string {
	opts := os.Getenv("GORACE")
	if strings.Contains(opts, "atexit_sleep_ms") {
		return opts
	}
	return strings.TrimSpace(opts + " atexit_sleep_ms=0")
}

// selfPath prefers the kernel's view of the executable, because os.Args[0] may be
// relative and tests run servers in other working directories.
func selfPath() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	if p, err := filepath.Abs(os.Args[0]); err == nil {
		return p
	}
	return os.Args[0]
}
