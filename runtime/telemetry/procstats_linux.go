package telemetry

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the clock tick /proc counts CPU time and start time in: 100
// on every Linux architecture Go supports (client_golang assumes it too).
const userHZ = 100

// processMetrics reads /proc/self: CPU time, memory, start time, file
// descriptors and their limit, and the network namespace's byte counts
// (what client_golang's process collector read through procfs).
func processMetrics() []processMetric {
	var out []processMetric
	add := func(name, help, typ string, v float64) {
		out = append(out, processMetric{name, help, typ, v})
	}
	if stat, err := os.ReadFile("/proc/self/stat"); err == nil {
		// The fields after the command, which is in parentheses and may
		// hold anything: state is field 3, utime 14, stime 15, starttime
		// 22, vsize 23, rss 24 (pages).
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
			f := strings.Fields(string(stat[i+1:]))
			field := func(n int) float64 {
				if n-3 < len(f) {
					v, _ := strconv.ParseFloat(f[n-3], 64)
					return v
				}
				return 0
			}
			add("process_cpu_seconds_total", helpCPU, "counter", (field(14)+field(15))/userHZ)
			add("process_virtual_memory_bytes", helpVirtual, "gauge", field(23))
			add("process_resident_memory_bytes", helpResident, "gauge", field(24)*float64(os.Getpagesize()))
			if boot, ok := bootTime(); ok {
				add("process_start_time_seconds", helpStartTime, "gauge", boot+field(22)/userHZ)
			}
		}
	}
	if d, err := os.Open("/proc/self/fd"); err == nil {
		names, err := d.Readdirnames(-1)
		d.Close()
		if err == nil {
			add("process_open_fds", helpOpenFDs, "gauge", float64(len(names)))
		}
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		add("process_max_fds", helpMaxFDs, "gauge", float64(lim.Cur))
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil {
		add("process_virtual_memory_max_bytes", helpVirtMax, "gauge", float64(lim.Cur))
	}
	if in, sent, ok := netOctets(); ok {
		add("process_network_receive_bytes_total", helpReceived, "counter", in)
		add("process_network_transmit_bytes_total", helpSent, "counter", sent)
	}
	return out
}

// bootTime is btime in /proc/stat: when the system booted, in Unix
// seconds, which a process's start time in ticks is counted from.
func bootTime() (float64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n, err == nil
		}
	}
	return 0, false
}

// netOctets reads InOctets and OutOctets of the IpExt lines of
// /proc/self/net/netstat: a header line of names, then one of values.
func netOctets() (in, out float64, ok bool) {
	b, err := os.ReadFile("/proc/self/net/netstat")
	if err != nil {
		return 0, 0, false
	}
	var header []string
	for line := range strings.Lines(string(b)) {
		rest, isIP := strings.CutPrefix(line, "IpExt:")
		if !isIP {
			continue
		}
		if header == nil {
			header = strings.Fields(rest)
			continue
		}
		values := strings.Fields(rest)
		var foundIn, foundOut bool
		for i, name := range header {
			if i >= len(values) {
				break
			}
			switch name {
			case "InOctets":
				in, _ = strconv.ParseFloat(values[i], 64)
				foundIn = true
			case "OutOctets":
				out, _ = strconv.ParseFloat(values[i], 64)
				foundOut = true
			}
		}
		return in, out, foundIn && foundOut
	}
	return 0, 0, false
}
