package demoserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/runtime/mcp"
)

// childEnv makes the test binary act as the demo server on its own stdio,
// so TestChildProcess can talk to a real process without building mcpdeck.
const childEnv = "MCPDECK_DEMOSERVER_TEST_CHILD"

// waitFor bounds every wait in these tests; it is generous because -race
// and loaded CI machines are slow, and a passing test never waits it out.
const waitFor = 10 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		err := Run(context.Background(), os.Stdin, os.Stdout, Options{LogInterval: -1, Stderr: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, "demo server:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// message is any JSON-RPC message the server sends.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error,omitempty"`
	raw string
}

func (m message) isResponse() bool { return m.Method == "" }

// isResponseTo reports whether m answers the request with the JSON id.
func (m message) isResponseTo(id string) bool { return m.isResponse() && string(m.ID) == id }

// session is one Run over real os.Pipe pairs, driven with raw JSON lines.
type session struct {
	t      *testing.T
	in     *os.File // the write end of the server's stdin
	lines  chan message
	done   chan error // Run's result
	cancel context.CancelFunc
	closed bool
	// returned is set once the test has collected Run's result.
	returned bool
}

func startSession(t *testing.T, opts Options) *session {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{t: t, in: inW, lines: make(chan message), done: make(chan error, 1), cancel: cancel}
	stop := make(chan struct{})
	readerDone := make(chan struct{})

	go func() {
		err := Run(ctx, inR, outW, opts)
		// Closing the write end lets the reader see EOF once the server is done.
		outW.Close()
		s.done <- err
	}()
	go func() {
		defer close(readerDone)
		defer close(s.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			var m message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = message{Method: "<undecodable>", raw: sc.Text()}
			}
			m.raw = sc.Text()
			select {
			case s.lines <- m:
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.closeStdin()
		if !s.finished() {
			select {
			case err := <-s.done:
				if err != nil {
					t.Errorf("Run returned %v at cleanup, want nil", err)
				}
			case <-time.After(waitFor):
				t.Errorf("Run did not return within %v of stdin EOF", waitFor)
				cancel()
				<-s.done
			}
		}
		close(stop)
		<-readerDone
		cancel()
		inR.Close()
		outR.Close()
	})
	return s
}

// finished reports whether the test already collected Run's result.
func (s *session) finished() bool { return s.returned }

// wait returns Run's result, failing the test if it takes too long.
func (s *session) wait() error {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.returned = true
		return err
	case <-time.After(waitFor):
		s.t.Fatalf("Run did not return within %v", waitFor)
		return nil
	}
}

func (s *session) closeStdin() {
	if !s.closed {
		s.closed = true
		s.in.Close()
	}
}

// send writes one raw line to the server.
func (s *session) send(line string) {
	s.t.Helper()
	if strings.Contains(line, "\n") {
		s.t.Fatalf("test bug: a message must be one line: %s", line)
	}
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing to the server: %v", err)
	}
}

// request sends a request with a numeric id and params marshalled from v.
func (s *session) request(id int, method string, params any) {
	s.t.Helper()
	s.send(encode(s.t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

func (s *session) notify(method string, params any) {
	s.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	s.send(encode(s.t, m))
}

// next returns the next message, failing the test when none arrives in time
// or the server has closed its output.
func (s *session) next() message {
	s.t.Helper()
	select {
	case m, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the server closed its output while a message was expected")
		}
		if m.Method == "<undecodable>" {
			s.t.Fatalf("the server wrote a line that is not JSON: %q", m.raw)
		}
		return m
	case <-time.After(waitFor):
		s.t.Fatalf("no message from the server within %v", waitFor)
		return message{}
	}
}

// until reads messages until one satisfies match and returns it with every
// message read before it.
func (s *session) until(match func(message) bool) (message, []message) {
	s.t.Helper()
	var before []message
	for {
		m := s.next()
		if match(m) {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a request and returns its response, skipping notifications.
func (s *session) call(id int, method string, params any) message {
	s.t.Helper()
	s.request(id, method, params)
	m, _ := s.until(func(m message) bool { return m.isResponseTo(fmt.Sprint(id)) })
	return m
}

// result calls and decodes a successful result into v.
func (s *session) result(id int, method string, params, v any) {
	s.t.Helper()
	m := s.call(id, method, params)
	if m.Error != nil {
		s.t.Fatalf("%s: got error %d %q, want a result", method, m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		s.t.Fatalf("%s: decoding result %s: %v", method, m.Result, err)
	}
}

// rest closes stdin and returns every message the server still writes
// before its output ends, then checks that Run returned nil.
func (s *session) rest() []message {
	s.t.Helper()
	s.closeStdin()
	var out []message
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				if err := s.wait(); err != nil {
					s.t.Errorf("Run returned %v after stdin EOF, want nil", err)
				}
				return out
			}
			out = append(out, m)
		case <-time.After(waitFor):
			s.t.Fatalf("the server's output did not end within %v of stdin EOF", waitFor)
		}
	}
}

// initialize performs the handshake and returns the result.
func (s *session) initialize(version string) mcp.InitializeResult {
	s.t.Helper()
	var r mcp.InitializeResult
	s.result(0, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "demoserver-test", "version": "0"},
	}, &r)
	s.notify("notifications/initialized", nil)
	return r
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
