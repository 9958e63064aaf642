package telemetry

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	psapi                    = windows.NewLazySystemDLL("psapi.dll")
	procGetProcessMemoryInfo = psapi.NewProc("GetProcessMemoryInfo")
	kernel32                 = windows.NewLazySystemDLL("kernel32.dll")
	procGetProcessHandles    = kernel32.NewProc("GetProcessHandleCount")
)

// processMemoryCounters is PROCESS_MEMORY_COUNTERS_EX.
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
	privateUsage               uintptr
}

// processMetrics reads what client_golang's process collector read on
// Windows: CPU and start time, working set and private bytes, handles.
func processMetrics() []processMetric {
	var out []processMetric
	h := windows.CurrentProcess()
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) == nil {
		secs := func(ft windows.Filetime) float64 {
			return float64(uint64(ft.HighDateTime)<<32|uint64(ft.LowDateTime)) / 1e7 // 100 ns ticks
		}
		out = append(out,
			processMetric{"process_cpu_seconds_total", helpCPU, "counter", secs(kernel) + secs(user)},
			processMetric{"process_start_time_seconds", helpStartTime, "gauge", float64(created.Nanoseconds()) / 1e9})
	}
	var mem processMemoryCounters
	mem.cb = uint32(unsafe.Sizeof(mem))
	if r, _, _ := procGetProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&mem)), uintptr(mem.cb)); r != 0 {
		out = append(out,
			processMetric{"process_virtual_memory_bytes", helpVirtual, "gauge", float64(mem.privateUsage)},
			processMetric{"process_resident_memory_bytes", helpResident, "gauge", float64(mem.workingSetSize)})
	}
	var handles uint32
	if r, _, _ := procGetProcessHandles.Call(uintptr(h), uintptr(unsafe.Pointer(&handles))); r != 0 {
		out = append(out, processMetric{"process_handles", "Number of open handles.", "gauge", float64(handles)})
	}
	return out
}
