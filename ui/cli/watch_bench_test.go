//lint:file-ignore SA1019 the Go SDK client and server speak the session revisions here, where logging is current (deprecated only in 2026-07-28)

package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// watchFloodCount is how many notifications/message a flooding server
// sends in one iteration of BenchmarkWatchIntake.
const watchFloodCount = 100_000

// BenchmarkWatchIntake measures notification intake as a person gets it,
// from a server that floods watchFloodCount log messages as fast as it
// can write them: the Go SDK's own server (v1.8.0, jsonrpctest.GoSDKFlood,
// one write(2) a message, from the client's logging/setLevel on) and the
// fake server (jsonrpctest.Flood, buffered writes, right after
// initialization), each taken in by
//
//   - server: a bare reader that only counts lines, the server's own
//     emission rate (what a perfect client could take in);
//   - mcpdeck-watch: mcpdeck watch --json --stdio, a whole process, its
//     stdout a pipe the benchmark reads and counts "kind":"log" lines on;
//   - gosdk: the official Go SDK client (v1.8.0) with a logging handler
//     that counts.
//
// Each rate is messages over the time from starting the server (or
// mcpdeck) to the last message taken in; start-up is a few ms of the
// second or so a flood takes. One of each per iteration, interleaved;
// MCPDECK_BENCH_BIN times another build of mcpdeck:
//
//	go test ./ui/cli -run '^$' -bench WatchIntake -benchtime 3x -count 5
func BenchmarkWatchIntake(b *testing.B) {
	bin := os.Getenv("MCPDECK_BENCH_BIN")
	if bin == "" {
		bin = mcpdeckBin(b)
	}
	for _, mode := range []jsonrpctest.Mode{jsonrpctest.GoSDKFlood, jsonrpctest.Flood} {
		b.Run(string(mode), func(b *testing.B) {
			path, args, env := jsonrpctest.Command(mode, jsonrpctest.WithCount(watchFloodCount))
			var rates [3]float64
			for b.Loop() {
				rates[0] += floodRate(rawFloodReader(b, path, args, env))
				rates[1] += floodRate(watchFloodReader(b, bin, path, args, env))
				rates[2] += floodRate(goSDKFloodReader(b, path, args, env))
			}
			for i, name := range []string{"server", "mcpdeck-watch", "gosdk"} {
				b.ReportMetric(rates[i]/float64(b.N), name+"-msgs/s")
			}
			b.ReportMetric(rates[1]/rates[0], "watch/server")
			b.ReportMetric(rates[1]/rates[2], "watch/gosdk")
		})
	}
}

// floodRate turns the time one reader took into messages per second.
func floodRate(took time.Duration) float64 { return float64(watchFloodCount) / took.Seconds() }

func rawFloodReader(b *testing.B, path string, args, env []string) time.Duration {
	start := time.Now()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`+"\n")
	r := bufio.NewReaderSize(stdout, 64<<10)
	n := 0
	for n < watchFloodCount+2 { // two responses, and the flood
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			b.Fatalf("the server stopped after %d lines: %v", n, err)
		}
		_ = line
		n++
	}
	took := time.Since(start)
	stdin.Close()
	cmd.Wait()
	return took
}

func watchFloodReader(b *testing.B, bin, path string, args, env []string) time.Duration {
	dir := b.TempDir()
	start := time.Now()
	// Legacy: the 2026-07-28 revision has no logging/setLevel, which starts
	// the Go SDK server's flood.
	cmd := exec.Command(bin, "--protocol", "legacy", "watch", "--json", "--stdio", shellJoin(append([]string{path}, args...)))
	cmd.Env = append(append(os.Environ(), env...), "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	n := 0
	for n < watchFloodCount {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			b.Fatalf("watch stopped after %d log lines: %v\n%s", n, err, stderr.String())
		}
		if bytes.Contains(line, []byte(`"kind":"log"`)) {
			n++
		}
	}
	took := time.Since(start)
	cmd.Process.Signal(syscall.SIGINT)
	go io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("watch after ctrl+c: %v\n%s", err, stderr.String())
	}
	return took
}

func goSDKFloodReader(b *testing.B, path string, args, env []string) time.Duration {
	var got atomic.Int64
	done := make(chan struct{})
	start := time.Now()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {
			if got.Add(1) == watchFloodCount {
				close(done)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		b.Fatalf("the Go SDK client took in %d of %d messages", got.Load(), watchFloodCount)
	}
	return time.Since(start)
}

// shellJoin quotes words for --stdio, which splits as a shell does.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
