package runtime

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeUnread reports how many bytes written to w, the write end of a
// child's stdin pipe, the child has not read yet (FIONREAD works on either
// end of a Linux pipe); ok is false when w is not a pipe or the count
// cannot be had.
func pipeUnread(w io.Writer) (n int, ok bool) {
	sc, isConn := w.(syscall.Conn)
	if !isConn {
		return 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
