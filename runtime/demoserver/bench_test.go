package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
)

// The demo server's own costs, measured on the wire (raw JSON lines), so
// the same benchmarks time any implementation:
//
//	go test ./runtime/demoserver -run '^$' -bench . -benchmem -count 10

// BenchmarkCallRoundTrip is one tools/call (echo) answered, in process
// over real pipes: the server's share of every call mcpdeck makes to it.
func BenchmarkCallRoundTrip(b *testing.B) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), inR, outW, Options{LogInterval: -1}) }()
	b.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			b.Errorf("Run: %v", err)
		}
		inR.Close()
		outW.Close()
		outR.Close()
	})
	out := bufio.NewReader(outR)
	exchange(b, inW, out, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		exchange(b, inW, out, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, id))
	}
}

// BenchmarkProcessStartup is the demo server as mcpdeck runs it: a new
// process (the test binary, re-executed; see TestMain), initialize, one
// echo call, stdin closed, the process gone.
func BenchmarkProcessStartup(b *testing.B) {
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		out := bufio.NewReader(stdout)
		exchange(b, stdin, out, 1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
		if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
			b.Fatal(err)
		}
		exchange(b, stdin, out, 2, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
		stdin.Close()
		if _, err := io.Copy(io.Discard, out); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// exchange writes one request line and reads lines until its answer.
func exchange(b *testing.B, w io.Writer, r *bufio.Reader, id int, line string) {
	b.Helper()
	if _, err := io.WriteString(w, line+"\n"); err != nil {
		b.Fatal(err)
	}
	want := fmt.Appendf(nil, `"id":%d,`, id)
	for {
		got, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatalf("reading the answer to %d: %v", id, err)
		}
		if bytes.Contains(got, want) && !bytes.Contains(got, []byte(`"method"`)) {
			if bytes.Contains(got, []byte(`"error"`)) {
				b.Fatalf("request %d failed: %s", id, got)
			}
			return
		}
	}
}
