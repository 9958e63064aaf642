//go:build unix

package cli

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readerGone returns a channel closed when w is a pipe or socket whose
// reader went away (watch | head -3, head done): a command that may write
// nothing for a long time (a quiet server) learns it without a write
// failing with EPIPE. stop ends the watching; the channel is nil, never
// closed, for anything else (a terminal, a file, a test's buffer).
func readerGone(w io.Writer) (gone <-chan struct{}, stop func()) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, func() {}
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil, func() {}
	}
	// The read end of wake is polled beside w: closing its write end ends
	// the poll.
	wake := make([]int, 2)
	if unix.Pipe(wake) != nil {
		return nil, func() {}
	}
	ch := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		fds := []unix.PollFd{{Fd: int32(f.Fd())}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
		for {
			// No events asked of w: POLLERR (a pipe without a reader) and
			// POLLHUP (a socket whose peer closed) come regardless.
			_, err := unix.Poll(fds, -1)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case err != nil, fds[1].Revents != 0:
				return
			case fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0:
				close(ch)
				return
			}
		}
	}()
	return ch, func() {
		unix.Close(wake[1])
		<-done
		unix.Close(wake[0])
	}
}
