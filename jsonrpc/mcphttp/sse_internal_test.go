package mcphttp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
)

func TestSSEReader(t *testing.T) {
	t.Parallel()
	in := ": keep-alive comment\n" +
		"id: 1\r\nretry: 1500\r\ndata: \r\n\r\n" + // priming event, CRLF
		"event: message\ndata: {\"a\":\ndata: 1}\n\n" + // multi-line data
		"data:no-space\rid: 7\r\r" + // bare CR line endings
		"event: endpoint\ndata: /post?x=1\n\n" +
		"id\ndata: unterminated" // dropped at EOF, but "id" with no value resets it
	r := newSSEReader(strings.NewReader(in), 1<<10)
	type want struct {
		name, data, lastID string
		retry              time.Duration
	}
	for i, w := range []want{
		{"", "", "1", 1500 * time.Millisecond},
		{"message", "{\"a\":\n1}", "1", 1500 * time.Millisecond},
		{"", "no-space", "7", 1500 * time.Millisecond},
		{"endpoint", "/post?x=1", "7", 1500 * time.Millisecond},
	} {
		ev, err := r.next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if ev.name != w.name || string(ev.data) != w.data || r.lastID != w.lastID || r.retry != w.retry {
			t.Errorf("event %d = {%q %q} id %q retry %s, want %+v", i, ev.name, ev.data, r.lastID, r.retry, w)
		}
	}
	if _, err := r.next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF (the unterminated event is discarded)", err)
	}
}

func TestSSEReaderBoundsEvents(t *testing.T) {
	t.Parallel()
	// One long line, and many short data lines adding up.
	for name, in := range map[string]string{
		"line":  "data: " + strings.Repeat("x", 5000) + "\n\n",
		"lines": strings.Repeat("data: "+strings.Repeat("x", 100)+"\n", 50) + "\n",
	} {
		r := newSSEReader(strings.NewReader(in), 1024)
		if _, err := r.next(); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			t.Errorf("%s: %v, want ErrMessageTooLarge", name, err)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	if d := backoff(0, 1); d != 250*time.Millisecond {
		t.Errorf("first attempt without retry: %s", d)
	}
	if d := backoff(3*time.Second, 1); d != 3*time.Second {
		t.Errorf("first attempt honours retry: %s", d)
	}
	if d := backoff(0, 3); d != time.Second {
		t.Errorf("third attempt doubles twice: %s", d)
	}
	if d := backoff(0, 50); d != 10*time.Second {
		t.Errorf("capped: %s", d)
	}
	if d := backoff(time.Minute, 3); d != time.Minute {
		t.Errorf("a server retry above the cap is honoured, not doubled: %s", d)
	}
}

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := newRedactor(map[string]string{"Authorization": "Bearer tok-abcdef", "X-Short": "ab"})
	got := r.excerpt([]byte("echo: Bearer tok-abcdef and tok-abcdef\n\tmore"))
	if strings.Contains(got, "tok-abcdef") || !strings.Contains(got, "[redacted]") || strings.Contains(got, "\n") {
		t.Fatalf("excerpt = %q", got)
	}
}

func TestSSERetryIsClamped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"0": minRetry, "5": minRetry, "1500": 1500 * time.Millisecond,
		"600000": maxRetry, "99999999999999": maxRetry,
	} {
		r := newSSEReader(strings.NewReader("retry: "+in+"\ndata: x\n\n"), 1024)
		if _, err := r.next(); err != nil {
			t.Fatal(err)
		}
		if r.retry != want {
			t.Errorf("retry: %s gave %s, want %s", in, r.retry, want)
		}
	}
}
