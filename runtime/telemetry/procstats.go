package telemetry

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// The Go runtime's and the process's own metrics, read at scrape time
// under client_golang's names and HELP texts (its Go and process
// collectors' defaults), from runtime.ReadMemStats, debug.ReadGCStats and
// the operating system (procstats_*.go): not from runtime/metrics, whose
// package init, with client_golang's and procfs's, was in every start.
// README's Monitoring section lists them.

// goFamilies are the Go runtime's metrics.
func goFamilies(fams []promFamily) []promFamily {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gauge := func(name, help string, v float64) {
		fams = append(fams, promFamily{name: name, help: help, typ: "gauge", series: []promSeries{{value: v}}})
	}
	counter := func(name, help string, v float64) {
		fams = append(fams, promFamily{name: name, help: help, typ: "counter", series: []promSeries{{value: v}}})
	}
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	gauge("go_threads", "Number of OS threads created.", float64(threads))
	fams = append(fams, promFamily{name: "go_info", help: "Information about the Go environment.", typ: "gauge",
		series: []promSeries{{labels: []promLabel{{"version", runtime.Version()}}, value: 1}}})
	gauge("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads.", float64(runtime.GOMAXPROCS(0)))
	gauge("go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.", gogc())
	gauge("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes.", float64(debug.SetMemoryLimit(-1)))

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	d := &promDist{sum: gc.PauseTotal.Seconds(), count: uint64(gc.NumGC)}
	for i, q := range gc.PauseQuantiles {
		d.quantiles = append(d.quantiles, [2]float64{float64(i) / 4, q.Seconds()})
	}
	fams = append(fams, promFamily{name: "go_gc_duration_seconds", help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", typ: "summary",
		series: []promSeries{{dist: d}}})

	gauge("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", float64(ms.Alloc))
	counter("go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", float64(ms.TotalAlloc))
	gauge("go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", float64(ms.BuckHashSys))
	counter("go_memstats_frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", float64(ms.Frees))
	gauge("go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", float64(ms.GCSys))
	gauge("go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", float64(ms.HeapAlloc))
	gauge("go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", float64(ms.HeapIdle))
	gauge("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", float64(ms.HeapInuse))
	gauge("go_memstats_heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", float64(ms.HeapObjects))
	gauge("go_memstats_heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", float64(ms.HeapReleased))
	gauge("go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", float64(ms.HeapSys))
	gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9)
	counter("go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", float64(ms.Mallocs))
	gauge("go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", float64(ms.MCacheInuse))
	gauge("go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", float64(ms.MCacheSys))
	gauge("go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", float64(ms.MSpanInuse))
	gauge("go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", float64(ms.MSpanSys))
	gauge("go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", float64(ms.NextGC))
	gauge("go_memstats_other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", float64(ms.OtherSys))
	gauge("go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", float64(ms.StackInuse))
	gauge("go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", float64(ms.StackSys))
	gauge("go_memstats_sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", float64(ms.Sys))
	return fams
}

// gogc is GOGC as the runtime reads it at start ("off" is -1, anything
// unparsable 100); mcpdeck never calls debug.SetGCPercent, the one other
// way to change it, and reading it back through that call would change it
// for a moment.
func gogc() float64 {
	switch v := os.Getenv("GOGC"); {
	case v == "off":
		return -1
	default:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return float64(n)
		}
		return 100
	}
}

// processMetric is one of the process's own metrics; procstats_*.go read
// what their system offers.
type processMetric struct {
	name, help, typ string
	value           float64
}

const (
	helpCPU       = "Total user and system CPU time spent in seconds."
	helpOpenFDs   = "Number of open file descriptors."
	helpMaxFDs    = "Maximum number of open file descriptors."
	helpVirtual   = "Virtual memory size in bytes."
	helpVirtMax   = "Maximum amount of virtual memory available in bytes."
	helpResident  = "Resident memory size in bytes."
	helpStartTime = "Start time of the process since unix epoch in seconds."
	helpReceived  = "Number of bytes received by the process over the network."
	helpSent      = "Number of bytes sent by the process over the network."
)

func processFamilies(fams []promFamily) []promFamily {
	for _, p := range processMetrics() {
		fams = append(fams, promFamily{name: p.name, help: p.help, typ: p.typ, series: []promSeries{{value: p.value}}})
	}
	return fams
}
