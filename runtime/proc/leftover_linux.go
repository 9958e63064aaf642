package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// On Linux leftovers are read from /proc: the group's members by their
// pgrp, and the descendants that left the group from a snapshot of the
// server's process tree taken before it is asked to stop (once the server
// exits they are orphans, reparented to mcpdeck as subreaper, and nothing
// else ties them to it). A snapshot entry counts only while the process
// with that pid still has the start time it had, so a reused pid is never
// blamed on the server.

// maxTree bounds the snapshot of a server's process tree.
const maxTree = 4096

// descendants returns the processes below pid, from the children lists the
// kernel keeps per thread (/proc/PID/task/TID/children); on a kernel
// without them, from one scan of every process's parent.
func descendants(pid int) []procEntry {
	children := childrenFromTasks
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children"); errors.Is(err, fs.ErrNotExist) {
		children = childrenFromScan()
	}
	var out []procEntry
	seen := map[int]bool{pid: true}
	queue := []int{pid}
	for len(queue) > 0 && len(out) < maxTree {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children(next) {
			if seen[c] {
				continue
			}
			seen[c] = true
			if st, ok := readProcStat(c); ok {
				out = append(out, procEntry{pid: c, start: st.start, pgrp: st.pgrp})
				queue = append(queue, c)
			}
		}
	}
	return out
}

// childrenFromTasks lists pid's children from its threads' children files.
// Each thread's file is read through the thread's own /proc/TID directory,
// not /proc/PID/task/TID: procfs keeps a dentry for every path looked up,
// and when the server exits the kernel invalidates the dentries under
// /proc/PID while its threads release theirs, which with one entry per
// thread there made reaping a many-threaded server (any Go or Node server)
// take 5–10 ms instead of under 1 (BenchmarkStopThreadedServer).
func childrenFromTasks(pid int) []int {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task/")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + t.Name() + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// childrenFromScan maps every process to its children, for kernels built
// without the children files.
func childrenFromScan() func(int) []int {
	byParent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok {
			byParent[st.ppid] = append(byParent[st.ppid], pid)
		}
	}
	return func(pid int) []int { return byParent[pid] }
}

// alive reports whether the process is still the one recorded and has not
// exited (a zombie runs nothing and holds nothing).
func (e procEntry) alive() bool {
	st, ok := readProcStat(e.pid)
	return ok && st.start == e.start && st.state != 'Z' && st.state != 'X'
}

// members lists the live members of the process's group.
func (p *Process) members() []Leftover {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []Leftover{{Command: "members of process group " + strconv.Itoa(p.pid) + " (/proc cannot be read to name them)"}}
	}
	var out []Leftover
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.pgrp == p.pid && st.state != 'Z' && st.state != 'X' {
			out = append(out, Leftover{Pid: pid, Command: commandLine(pid)})
		}
	}
	return out
}

// commandLine is the process's arguments joined by spaces, or its name
// when it has none to show (a kernel thread, a process exiting).
func commandLine(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err == nil && len(bytes.Trim(b, "\x00")) > 0 {
		return cutCommand(strings.ReplaceAll(string(bytes.Trim(b, "\x00")), "\x00", " "))
	}
	b, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return cutCommand("[" + strings.TrimSpace(string(b)) + "]")
}
