//go:build windows

package proc

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows there are no process groups or signals. Each server runs in
// its own Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: the job holds
// the server and every process it starts, SIGKILL of the group becomes
// TerminateJobObject, and when mcpdeck exits, however it exits, the kernel
// closes the job's last handle and kills whatever is left in it. There is no
// SIGTERM step: Stop closes stdin, waits, then terminates the job.
//
// A process is assigned to its job just after it started, so a child it
// spawns in that first instant escapes the job; Go's os/exec offers no
// suspended start to close that window.

// platform holds the server's job.
type platform struct {
	job windows.Handle // 0 when the job could not be created
}

func sysProcAttr() *syscall.SysProcAttr { return nil }

func platformInit() {}

// attach puts the new process into a fresh kill-on-close job.
func (p *Process) attach() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("configuring the job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("opening process %d: %w", p.pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("assigning process %d to its job object: %w", p.pid, err)
	}
	p.plat.job = job
	return nil
}

// detach closes the job, which kills anything still in it.
func (p *Process) detach(bool) {
	if p.plat.job != 0 {
		windows.CloseHandle(p.plat.job)
	}
}

// signalGroup terminates the job for SIGKILL; other signals do not exist.
func (p *Process) signalGroup(sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return errors.ErrUnsupported
	}
	if p.plat.job != 0 {
		return windows.TerminateJobObject(p.plat.job, 1)
	}
	return p.cmd.Process.Kill()
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// golang.org/x/sys/windows does not define.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

// groupGone reports whether the job has no active process left.
func (p *Process) groupGone() bool {
	if p.plat.job == 0 {
		return true
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(p.plat.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return true
	}
	return info.ActiveProcesses == 0
}

// GroupAlive reports whether process pid is still running. Windows has no
// process groups; a stopped server's job, which held its descendants, was
// terminated and closed by Stop.
func GroupAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	const stillActive = 259
	return code == stillActive
}

// WatchdogErr is always nil on Windows: jobs need no watchdog process.
func WatchdogErr() error { return nil }

// WatchdogPid is 0: no watchdog process runs on this platform.
func WatchdogPid() int { return 0 }
