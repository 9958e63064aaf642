package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// maxReasonBytes bounds the stderr line quoted in ExitError.Error: the message
// is shown as a one-line reason in tables and status bars.
const maxReasonBytes = 200

// ExitError describes a process that did not exit with status 0.
type ExitError struct {
	// Code is the exit status, or -1 when the process was killed by a signal.
	Code int
	// Signal is the signal that killed the process, 0 if none.
	Signal syscall.Signal
	// StderrTail is the stderr tail at exit, oldest line first.
	StderrTail []string
}

// Error says how the process ended, plus its last stderr line if any: the
// runtime shows it to users as the reason a connection closed, and a server's
// last words are usually the most useful part.
func (e *ExitError) Error() string {
	var msg string
	if e.Signal != 0 {
		msg = "killed by signal " + signalName(e.Signal)
	} else {
		msg = fmt.Sprintf("exited with status %d", e.Code)
	}
	if n := len(e.StderrTail); n > 0 {
		last := e.StderrTail[n-1]
		if len(last) > maxReasonBytes {
			last = cutUTF8(last, maxReasonBytes) + "…"
		}
		msg += "; last stderr line: " + last
	}
	return msg
}

// exitError converts the result of cmd.Wait into the value Exit reports.
func exitError(name string, waitErr error, state *os.ProcessState, tail []string) error {
	if waitErr == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) || state == nil {
		return fmt.Errorf("waiting for %q: %w", name, waitErr)
	}
	out := &ExitError{Code: state.ExitCode(), StderrTail: tail}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		out.Signal = ws.Signal()
		out.Code = -1
	}
	return out
}

// signalNames spells signals the way users read them in docs and in kill -l;
// syscall.Signal.String gives prose ("killed", "terminated") instead. Only
// signals defined on every platform are listed, so this file needs no build tags.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP:  "SIGHUP",
	syscall.SIGINT:  "SIGINT",
	syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL:  "SIGILL",
	syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS:  "SIGBUS",
	syscall.SIGFPE:  "SIGFPE",
	syscall.SIGKILL: "SIGKILL",
	syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGALRM: "SIGALRM",
	syscall.SIGTERM: "SIGTERM",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("%d (%s)", int(s), s)
}
