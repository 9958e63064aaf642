package jsonrpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	goleak.VerifyTestMain(m)
}

// server is a fake server process connected through a jsonrpc.Conn.
type server struct {
	conn    *jsonrpc.Conn
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error

	mu     sync.Mutex
	stderr []string
	lines  chan string // every stderr line, for waitStderr
}

type serverOpts struct {
	conn jsonrpc.Options
	std  jsonrpc.StdioOptions
	env  []jsonrpctest.Option
}

// startServer runs a fake server in mode over real pipes. The exit status
// becomes the connection's close cause, as the runtime does it.
func startServer(t testing.TB, mode jsonrpctest.Mode, o serverOpts) *server {
	t.Helper()
	path, args, env := jsonrpctest.Command(mode, o.env...)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	s := &server{cmd: cmd, exited: make(chan struct{}), lines: make(chan string, 1024)}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr = append(s.stderr, sc.Text())
			s.mu.Unlock()
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
		errR.Close()
	}()
	go func() {
		<-stderrDone
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	o.std.OnEOF = func() error {
		select {
		case <-s.exited:
			if s.waitErr != nil {
				return fmt.Errorf("server exited: %w", s.waitErr)
			}
			return fmt.Errorf("server exited")
		case <-time.After(2 * time.Second):
			return fmt.Errorf("server closed its stdout")
		}
	}
	stream := jsonrpc.NewStdioStream(outR, inW, closers{inW, outR}, o.std)
	s.conn = jsonrpc.NewConn(stream, o.conn)
	t.Cleanup(func() {
		s.conn.Close()
		_ = cmd.Process.Kill()
		<-s.exited
	})
	return s
}

type closers []interface{ Close() error }

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// waitStderr waits for a stderr line containing substr.
func (s *server) waitStderr(t testing.TB, substr string) string {
	t.Helper()
	s.mu.Lock()
	for _, l := range s.stderr {
		if strings.Contains(l, substr) {
			s.mu.Unlock()
			return l
		}
	}
	s.mu.Unlock()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l := <-s.lines:
			if strings.Contains(l, substr) {
				return l
			}
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("no stderr line containing %q; stderr was:\n%s", substr, strings.Join(s.stderr, "\n"))
			return ""
		}
	}
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// initialize performs the MCP handshake.
func initialize(t testing.TB, c *jsonrpc.Conn) {
	t.Helper()
	ctx := ctxTimeout(t, 10*time.Second)
	_, err := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "jsonrpc-test", "version": "0"},
	}, jsonrpc.WithoutCancelNotification())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("initialized: %v", err)
	}
}

func callTool(ctx context.Context, c *jsonrpc.Conn, name string, args any) (json.RawMessage, error) {
	return c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, jsonrpc.WithLabel(name))
}
