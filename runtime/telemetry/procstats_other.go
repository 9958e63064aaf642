//go:build unix && !linux

package telemetry

import "syscall"

// processMetrics reads what every Unix offers without /proc: CPU time
// and the file descriptor limit.
func processMetrics() []processMetric {
	var out []processMetric
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
		out = append(out, processMetric{"process_cpu_seconds_total", helpCPU, "counter", cpu})
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		out = append(out, processMetric{"process_max_fds", helpMaxFDs, "gauge", float64(lim.Cur)})
	}
	return out
}
