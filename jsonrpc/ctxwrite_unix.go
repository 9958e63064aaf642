//go:build unix

package jsonrpc

import (
	"errors"
	"syscall"
)

const canInterrupt = true

func rawWrite(fd uintptr, b []byte) (int, error) { return syscall.Write(int(fd), b) }

func wouldBlock(err error) bool { return errors.Is(err, syscall.EAGAIN) }

func interrupted(err error) bool { return errors.Is(err, syscall.EINTR) }
