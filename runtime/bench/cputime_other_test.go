//go:build !unix

package bench

import "time"

// cpuTime is not measured where getrusage does not exist; the benchmark's
// cpu-ns/op then reads 0 and its latencies still hold.
func cpuTime() time.Duration { return 0 }
