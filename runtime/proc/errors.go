package proc

import "errors"

// Sentinel errors of this package. Errors returned by Start and Stop wrap one
// of them, so callers can branch with errors.Is while users read the full
// message, which names the command and says what to do next.
var (
	// ErrNoCommand means the Spec has an empty Path.
	ErrNoCommand = errors.New("no command given")
	// ErrNotFound means the command does not exist on PATH or at the given path.
	ErrNotFound = errors.New("command not found")
	// ErrNotExecutable means the command exists but cannot be executed.
	ErrNotExecutable = errors.New("command is not executable")
	// ErrBadDir means the working directory does not exist or is not a directory.
	ErrBadDir = errors.New("working directory is not usable")
	// ErrRunning is what Exit reports before the process has exited and been reaped.
	ErrRunning = errors.New("process is still running")
	// ErrUnresponsive means a process (or a member of its group) survived
	// SIGKILL for longer than the kill deadline, which only happens when it is
	// stuck in the kernel (uninterruptible sleep) or belongs to another user.
	ErrUnresponsive = errors.New("unresponsive subprocess")
)
