package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// BenchmarkIdleServerMemory reports the heap and stacks mcpdeck holds per
// ready, idle server (session, connection, process supervision), with 40
// fake servers enabled and pings off:
//
//	go test ./runtime -run '^$' -bench IdleServerMemory -benchtime 2x
func BenchmarkIdleServerMemory(b *testing.B) {
	const n = 40
	servers := make([]config.Server, n)
	for i := range servers {
		servers[i] = fakeServer(fmt.Sprintf("f%02d", i), jsonrpctest.Normal)
	}
	var perServer float64
	for range b.N {
		c := New(Options{Config: configOf(servers...), StopGrace: 500 * time.Millisecond})
		before := inUse()
		enable(b, c)
		perServer = float64(inUse()-before) / n
		c.Shutdown(context.Background())
	}
	b.ReportMetric(perServer, "bytes/server")
	b.ReportMetric(0, "ns/op")
}

func inUse() uint64 {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
