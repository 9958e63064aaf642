package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
	if line, last, ok := tellingLine(e.StderrTail); ok {
		if len(line) > maxReasonBytes {
			line = cutUTF8(line, maxReasonBytes) + "…"
		}
		if last {
			msg += "; last stderr line: " + line
		} else {
			msg += "; stderr: " + line
		}
	}
	return msg
}

// tellingLine picks the stderr line that says why a process ended: the
// last one, except where a runtime prints the error above a stack trace
// and ends with the trace, so that the last line says nothing: Go's
// "panic: …" or "fatal error: …" before its goroutine dump, and Node's
// uncaught "TypeError: …" before its "    at …" frames and its closing
// "Node.js v22.1.0". last reports that the line is the last one.
func tellingLine(tail []string) (line string, last, ok bool) {
	n := len(tail)
	for n > 0 && strings.TrimSpace(tail[n-1]) == "" {
		n--
	}
	if n == 0 {
		return "", false, false
	}
	if i, found := goPanicLine(tail[:n]); found {
		return tail[i], i == n-1, true
	}
	if strings.HasPrefix(tail[n-1], "Node.js v") {
		if i, found := nodeErrorLine(tail[:n-1]); found {
			return tail[i], false, true
		}
	}
	return tail[n-1], true, true
}

// goPanicLine finds a Go runtime's "panic: …" or "fatal error: …" line
// followed by its goroutine dump.
func goPanicLine(tail []string) (int, bool) {
	dump := false
	for i := len(tail) - 1; i >= 0; i-- {
		l := tail[i]
		switch {
		case strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, "]:"):
			dump = true
		case dump && (strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")):
			return i, true
		}
	}
	return 0, false
}

// nodeErrorLine finds, in what Node printed before "Node.js v…", the line
// above the last run of "    at …" stack frames: the error's message.
func nodeErrorLine(tail []string) (int, bool) {
	i := len(tail) - 1
	for i >= 0 && !isNodeFrame(tail[i]) {
		i--
	}
	for i >= 0 && isNodeFrame(tail[i]) {
		i--
	}
	for i >= 0 && strings.TrimSpace(tail[i]) == "" {
		i--
	}
	return i, i >= 0
}

func isNodeFrame(l string) bool {
	return strings.HasPrefix(l, "    at ")
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
