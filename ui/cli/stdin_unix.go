//go:build unix

package cli

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin returns stdin as a reader whose Close interrupts a pending
// read: a pipe or socket is switched to non-blocking mode so that Go's
// poller owns it. Anything else (a terminal, a test's reader) is returned
// as it is.
func pollableStdin(r io.Reader) io.ReadCloser {
	f, ok := r.(*os.File)
	if !ok {
		return io.NopCloser(r)
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	fd := int(f.Fd())
	if syscall.SetNonblock(fd, true) != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
