package proc

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// On macOS leftovers are the live members of the server's process group,
// listed with sysctl (kern.proc.pgrp), their arguments read from
// kern.procargs2. Descendants that left the group are not tracked: there is
// no subreaper, so they belong to launchd once the server exits.

func descendants(int) []procEntry { return nil }

func (procEntry) alive() bool { return false }

// szomb is the p_stat of a zombie (sys/proc.h).
const szomb = 5

// members lists the live members of the process's group.
func (p *Process) members() []Leftover {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", p.pid)
	if err != nil {
		return []Leftover{{Command: "members of process group " + strconv.Itoa(p.pid) + " (sysctl cannot list them: " + err.Error() + ")"}}
	}
	var out []Leftover
	for _, kp := range procs {
		if kp.Proc.P_stat == szomb {
			continue
		}
		pid := int(kp.Proc.P_pid)
		cmd := commandLine(pid)
		if cmd == "" {
			cmd = cutCommand(string(bytes.TrimRight(kp.Proc.P_comm[:], "\x00")))
		}
		out = append(out, Leftover{Pid: pid, Command: cmd})
	}
	return out
}

// commandLine reads kern.procargs2: argc, the executable's path, padding,
// then argc NUL-terminated arguments.
func commandLine(pid int) string {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return ""
	}
	argc := int(binary.LittleEndian.Uint32(b[:4]))
	rest := b[4:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = bytes.TrimLeft(rest[i:], "\x00")
	}
	var args []string
	for len(args) < argc && len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			i = len(rest)
		}
		args = append(args, string(rest[:i]))
		rest = rest[min(i+1, len(rest)):]
	}
	return cutCommand(strings.Join(args, " "))
}
