package proc

import (
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows leftovers are the processes still active in the server's job
// (JobObjectBasicProcessIdList), named by their executable's path. Every
// descendant is in the job unless it was created in the instant before the
// server was assigned to it, so there is no separate tree to follow.

func descendants(int) []procEntry { return nil }

func (procEntry) alive() bool { return false }

// maxJobList bounds the process ids read from a job.
const maxJobList = 256

// jobProcessList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for
// maxJobList ids.
type jobProcessList struct {
	Assigned, Listed uint32
	IDs              [maxJobList]uintptr
}

func (p *Process) members() []Leftover {
	if p.plat.job == 0 {
		return nil
	}
	var list jobProcessList
	if err := windows.QueryInformationJobObject(p.plat.job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil && list.Listed == 0 {
		return []Leftover{{Command: "processes of the server's job (the job cannot be listed: " + err.Error() + ")"}}
	}
	var out []Leftover
	for _, id := range list.IDs[:min(int(list.Listed), maxJobList)] {
		if int(id) == p.pid {
			continue
		}
		out = append(out, Leftover{Pid: int(id), Command: commandLine(int(id))})
	}
	if int(list.Assigned) > int(list.Listed) {
		out = append(out, Leftover{Command: strconv.Itoa(int(list.Assigned-list.Listed)) + " more processes of the server's job"})
	}
	return out
}

// commandLine is the process's executable path.
func commandLine(pid int) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return ""
	}
	return cutCommand(windows.UTF16ToString(buf[:n]))
}
