package runtime

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/demoserver"
)

// envDemo makes the test binary run the demo server.
const envDemo = "MCPDECK_RUNTIME_TEST_DEMO"

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	if os.Getenv(envDemo) == "1" {
		err := demoserver.Run(context.Background(), os.Stdin, os.Stdout, demoserver.Options{LogInterval: -1, Stderr: os.Stderr})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(envListsTogether) == "1" {
		listsTogetherServer()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// fakeServer configures a fake server in mode.
func fakeServer(name string, mode jsonrpctest.Mode, opts ...jsonrpctest.Option) config.Server {
	path, args, _ := jsonrpctest.Command(mode, opts...)
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(mode, opts...), Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
		AutoReconnect: config.Reconnect{Enabled: false},
	}
}

// demoServer configures the demo server.
func demoServer(name string) config.Server {
	exe, _ := os.Executable()
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second,
	}
}

func newController(t testing.TB, servers ...config.Server) *Controller {
	t.Helper()
	c := New(Options{Config: &config.Config{Servers: servers}, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return c
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func enable(t testing.TB, c *Controller) {
	t.Helper()
	if err := c.SetEnabled(ctxFor(t, 30*time.Second), true); err != nil {
		t.Fatalf("enable: %v", err)
	}
}

// recorder collects events for assertions.
type recorder struct {
	ch     <-chan Event
	cancel func()
	seen   []Event
}

func record(t testing.TB, c *Controller) *recorder {
	ch, cancel := c.Subscribe(SubscribeOptions{Lossless: true, Buffer: 1 << 16})
	r := &recorder{ch: ch, cancel: cancel}
	t.Cleanup(cancel)
	return r
}

// waitFor reads events until match returns true, failing at the deadline.
func (r *recorder) waitFor(t testing.TB, what string, match func(Event) bool) Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-r.ch:
			if !ok {
				t.Fatalf("event stream closed waiting for %s", what)
			}
			r.seen = append(r.seen, e)
			if _, ok := EventKindOf(e); !ok {
				// Every event the runtime publishes has its row in the
				// table, or recordings, filters and faces miss it.
				t.Errorf("the runtime published a %T, which is not in eventKinds", e)
			}
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; saw %d events", what, len(r.seen))
		}
	}
}

// waitAny is waitFor that also accepts an event already seen: for events
// whose order relative to earlier waits is not defined.
func (r *recorder) waitAny(t testing.TB, what string, match func(Event) bool) Event {
	t.Helper()
	for _, e := range r.seen {
		if match(e) {
			return e
		}
	}
	return r.waitFor(t, what, match)
}

func stateIs(server string, to State) func(Event) bool {
	return func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Server == server && sc.To == to
	}
}

func serverOf(t testing.TB, c *Controller, name string) ServerSnapshot {
	t.Helper()
	v, ok := c.Snapshot().Server(name)
	if !ok {
		t.Fatalf("no server %q in snapshot", name)
	}
	return v
}

func toolNames(ts []Tool) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

func configOf(servers ...config.Server) *config.Config { return &config.Config{Servers: servers} }
