package record

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/demoserver"
)

// envDemo makes the test binary run the demo server; envCrash makes it a
// recording mcpdeck session that a test kills.
const (
	envDemo  = "MCPDECK_RECORD_TEST_DEMO"
	envCrash = "MCPDECK_RECORD_TEST_CRASH"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	if os.Getenv(envDemo) == "1" {
		err := demoserver.Run(context.Background(), os.Stdin, os.Stdout, demoserver.Options{LogInterval: logIntervalFromEnv(), Stderr: os.Stderr})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(envCrash); path != "" {
		os.Exit(recordUntilKilled(path))
	}
	goleak.VerifyTestMain(m)
}

func logIntervalFromEnv() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("MCPDECK_RECORD_TEST_LOG_INTERVAL")); err == nil {
		return d
	}
	return -1
}

// demoServer configures the demo server (this binary, re-executed).
func demoServer(name string, env ...string) config.Server {
	exe, _ := os.Executable()
	e := map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: e, Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second,
	}
}

// fakeServer configures a jsonrpctest fake server in mode.
func fakeServer(name string, mode jsonrpctest.Mode, opts ...jsonrpctest.Option) config.Server {
	path, args, _ := jsonrpctest.Command(mode, opts...)
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(mode, opts...), Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
	}
}

func configOf(servers ...config.Server) *config.Config { return &config.Config{Servers: servers} }

// newController builds a controller the test shuts down.
func newController(t testing.TB, cfg *config.Config) *runtime.Controller {
	t.Helper()
	c := runtime.New(runtime.Options{Config: cfg, StopGrace: 500 * time.Millisecond, LogLevel: "debug"})
	t.Cleanup(func() { shutdown(t, c) })
	return c
}

func shutdown(t testing.TB, c *runtime.Controller) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startRecorder records c into a file in a temporary directory; the test
// closes it (after shutting c down) with r.Close.
func startRecorder(t testing.TB, c Source, cfg *config.Config, mod ...func(*Options)) (*Recorder, string) {
	t.Helper()
	path := t.TempDir() + "/session.jsonl"
	opts := Options{Path: path, Config: cfg, Version: "test"}
	for _, f := range mod {
		f(&opts)
	}
	r, err := Start(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, path
}

// recordUntilKilled is the crashing child: it records a demo server that
// logs fast, says "recording" on stdout once lines are on disk, and runs
// until a test SIGKILLs it.
func recordUntilKilled(path string) int {
	srv := demoServer("demo", "MCPDECK_RECORD_TEST_LOG_INTERVAL", "2ms")
	cfg := configOf(srv)
	c := runtime.New(runtime.Options{Config: cfg, LogLevel: "debug"})
	r, err := Start(c, Options{Path: path, Config: cfg, Version: "crash-test"})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	if err := c.SetEnabled(context.Background(), true); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	for r.Size() < 32<<10 {
		time.Sleep(5 * time.Millisecond) // a child waiting to be killed, not a test
	}
	os.Stdout.WriteString("recording\n")
	select {}
}
