package jsonrpc_test

import (
	"os"
	"runtime"
	"testing"

	"mcpdeck/jsonrpc"
)

// idleConns opens n connections over real pipes whose far ends are held
// open and silent, as idle servers are, and returns a func closing them.
func idleConns(tb testing.TB, n int) func() {
	tb.Helper()
	var conns []*jsonrpc.Conn
	var files []*os.File
	for range n {
		outR, outW, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		inR, inW, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, outW, inR)
		stream := jsonrpc.NewStdioStream(outR, inW, closers{inW, outR}, jsonrpc.StdioOptions{})
		conns = append(conns, jsonrpc.NewConn(stream, jsonrpc.Options{
			OnNotification: func(jsonrpc.Notification) {},
			Trace:          func(jsonrpc.Frame) {},
			OnAnomaly:      func(jsonrpc.Anomaly) {},
		}))
	}
	return func() {
		for _, c := range conns {
			c.Close()
		}
		for _, f := range files {
			f.Close()
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// BenchmarkIdleConnMemory reports the heap and stack an idle connection
// (stdio stream, notification queue, read loop and dispatcher) holds, in
// bytes per connection, with 200 of them open:
//
//	go test ./jsonrpc -run '^$' -bench IdleConnMemory
func BenchmarkIdleConnMemory(b *testing.B) {
	const n = 200
	var perConn float64
	for range b.N {
		before := heapInUse()
		closeAll := idleConns(b, n)
		after := heapInUse()
		perConn = float64(after-before) / n
		closeAll()
	}
	b.ReportMetric(perConn, "bytes/conn")
	b.ReportMetric(0, "ns/op")
}

// TestIdleConnMemoryIsSmall keeps the figure from creeping back: an idle
// connection used to hold about 400 KB (a 4,096-slot notification ring and
// two 64 KiB buffers allocated up front).
func TestIdleConnMemoryIsSmall(t *testing.T) {
	const n = 100
	before := heapInUse()
	closeAll := idleConns(t, n)
	defer closeAll()
	// Signed: memory freed meanwhile (an earlier test's goroutines ending,
	// their stacks released) can leave the second figure below the first,
	// and an unsigned difference then wraps to a huge "per connection".
	perConn := float64(int64(heapInUse())-int64(before)) / n
	if perConn > 64<<10 {
		t.Fatalf("an idle connection holds %.0f bytes, want under 64 KiB", perConn)
	}
	t.Logf("idle connection: %.0f bytes", perConn)
}
