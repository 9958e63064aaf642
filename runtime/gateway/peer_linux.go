package gateway

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerOf names the process at the other end of a control connection, as
// the kernel says (SO_PEERCRED), and refuses one of another user: the
// socket's mode already keeps them out, this holds if it is loosened.
func peerOf(c net.Conn) (string, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return "", nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return "", nil
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil || cred == nil {
		return "", nil
	}
	if int(cred.Uid) != os.Getuid() {
		return "", fmt.Errorf("the control socket answers its owner only (uid %d), not uid %d", os.Getuid(), cred.Uid)
	}
	return fmt.Sprintf(" (pid %d, uid %d)", cred.Pid, cred.Uid), nil
}
