// Package proc supervises the child processes of stdio MCP servers: it starts
// them without a shell, in their own process group, with the configured
// environment and working directory; drains their stderr line by line into a
// bounded log; reports how they exited; and stops them with the escalating
// sequence close stdin → grace → SIGTERM to the group → grace → SIGKILL to the
// group → reap, so that no server or grandchild outlives mcpdeck.
//
// No server or grandchild outlives mcpdeck, also when mcpdeck is killed and
// cannot run Stop:
//   - Linux: each server gets a parent-death signal (SIGKILL); mcpdeck is a
//     child subreaper, so members orphaned by a server's exit stay its
//     children (reaped as they exit, on SIGCHLD, and by Stop); and a
//     watchdog process (watchdog_unix.go) SIGKILLs every registered process
//     group the moment mcpdeck's end of a pipe closes, which reaches the
//     grandchildren the parent-death signal does not.
//   - macOS and the other Unixes: process groups and the watchdog; no
//     parent-death signal, so the whole group dies a moment after mcpdeck
//     rather than at once.
//   - Windows: each server runs in its own kill-on-close Job Object, which
//     holds the server and its descendants; there is no SIGTERM step.
//
// What none of these reach is a descendant that leaves its process group
// (setsid, a daemonising double fork) on Unix, or that is created in the
// instant before a Windows process is assigned to its job.
//
// Stop also tells what a server left running when it exited (Leftover): the
// members of its group (Windows: its job) still alive once the server was
// reaped, and on Linux the descendants that had left the group, found in a
// snapshot of its process tree taken before it was asked to stop. They are
// observed before the group is cleared, so `mcpdeck check` can blame the
// server for them rather than credit mcpdeck's own cleanup.
package proc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Defaults applied by Start to zero Spec fields.
const (
	// DefaultGrace is how long each step of Stop waits before escalating.
	DefaultGrace = 2 * time.Second
	// DefaultStderrLines is how many stderr lines a Process keeps in memory.
	DefaultStderrLines = 200
	// MaxLineBytes bounds one stderr line; longer lines are cut to this size
	// and marked, so a server writing a megabyte without a newline cannot grow
	// mcpdeck's memory.
	MaxLineBytes = 64 << 10
)

// killWait bounds the wait after SIGKILL. SIGKILL cannot be caught, so a
// process still present after this long is stuck in the kernel; waiting
// forever would hang mcpdeck's shutdown on a problem it cannot fix.
const killWait = 5 * time.Second

// drainLinger bounds how long the waiter lets the stderr drain catch up after
// the leader exits while other group members remain, so that ExitError
// carries the last lines the server wrote. It is short because a grandchild
// that inherited stderr keeps the pipe open and the drain may never reach EOF.
const drainLinger = 250 * time.Millisecond

// Spec describes a child process to start.
type Spec struct {
	// Path is the command: a name looked up on PATH, or a path. A relative
	// path containing a separator is resolved against Dir.
	Path string
	// Args are the arguments after the command name.
	Args []string
	// Env is the full environment ("K=V"); nil means inherit os.Environ().
	Env []string
	// Dir is the working directory; empty means mcpdeck's own.
	Dir string
	// Grace is how long each step of Stop waits for the process to exit
	// before escalating; zero or negative means DefaultGrace.
	Grace time.Duration
	// StderrLines bounds the stderr tail kept in memory; zero or negative
	// means DefaultStderrLines.
	StderrLines int
	// OnStderr, when set, is called for each stderr line, in order, from the
	// drain goroutine. Lines longer than MaxLineBytes arrive truncated with a
	// marker. It must not block: while it runs the server's stderr is not
	// read, and a server blocked on a full stderr pipe stops answering.
	OnStderr func(line string)
	// Scrub, when set, is applied to each stderr line before anything
	// else sees it (the tail, OnStderr): the caller's secrets scrubber, so
	// a server's stderr enters mcpdeck scrubbed in one place.
	Scrub func(line string) string
}

// Process is a started child process. All methods are safe for concurrent use.
// Stop must be called once the process is no longer wanted, also after it
// exited by itself: Stop clears leftover members of its process group and
// releases the pipes.
type Process struct {
	spec Spec // defaults applied; read-only after Start
	name string
	cmd  *exec.Cmd
	pid  int // also the process group id, because of Setpgid

	stdin  *os.File // parent's write end of the child's stdin
	stdout *os.File // parent's read end of the child's stdout
	stderr *os.File // parent's read end of the child's stderr; read only by the drain goroutine

	tail       *tail
	drainDone  chan struct{} // closed when the drain goroutine returns
	reaped     chan struct{} // closed by the waiter as soon as cmd.Wait returns
	done       chan struct{} // closed by the waiter after exit is set (after reaped)
	exit       error         // written by the waiter before done is closed; read only after done
	stopOnce   sync.Once
	stopResult StopResult // written inside stopOnce; read after it
	//lint:ignore U1000 only Windows keeps state here (its job, sys_windows.go)
	plat platform // platform supervision state (the Windows job); set in Start
}

// Prepare begins, on a goroutine of its own, the set-up the first Start
// needs and that takes a while (on Unix spawning the watchdog), so that a
// command about to start servers overlaps it with loading its own state.
// Start waits for it to finish; calling Prepare again does nothing.
func Prepare() { go platformInit() }

// Start starts the process described by spec. The returned error names the
// command and says what to do, e.g. when the command is not on PATH.
func Start(spec Spec) (*Process, error) {
	if spec.Path == "" {
		return nil, fmt.Errorf("starting server process: %w; set \"command\" in the server's configuration", ErrNoCommand)
	}
	if spec.Grace <= 0 {
		spec.Grace = DefaultGrace
	}
	if spec.StderrLines <= 0 {
		spec.StderrLines = DefaultStderrLines
	}
	if spec.Dir != "" {
		if err := checkDir(spec.Dir); err != nil {
			return nil, fmt.Errorf("starting %q: %w", spec.Path, err)
		}
	}

	platformInit()
	cmd := exec.Command(spec.Path, spec.Args...)
	if cmd.Err != nil {
		return nil, startError(spec, cmd.Err)
	}
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.SysProcAttr = sysProcAttr()

	// Explicit os.Pipe pairs rather than cmd.StdoutPipe and friends: exec
	// passes *os.File ends straight to the child, so cmd.Wait starts no
	// copying goroutines and never closes a pipe a reader is still using.
	var pipes pipeSet
	defer pipes.closeChildEnds()
	stdinR, stdinW, err := pipes.pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %q: creating stdin pipe: %w", spec.Path, err)
	}
	stdoutR, stdoutW, err := pipes.pipe()
	if err != nil {
		pipes.closeAll()
		return nil, fmt.Errorf("starting %q: creating stdout pipe: %w", spec.Path, err)
	}
	stderrR, stderrW, err := pipes.pipe()
	if err != nil {
		pipes.closeAll()
		return nil, fmt.Errorf("starting %q: creating stderr pipe: %w", spec.Path, err)
	}
	pipes.child = []*os.File{stdinR, stdoutW, stderrW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW

	if err := cmd.Start(); err != nil {
		pipes.closeAll()
		return nil, startError(spec, err)
	}
	// The deferred closeChildEnds drops the parent's copies of the child's
	// ends: only then does stdout read EOF (and the child's stdin see EOF when
	// we close ours) once the other side is gone.

	p := &Process{
		spec:      spec,
		name:      spec.Path,
		cmd:       cmd,
		pid:       cmd.Process.Pid,
		stdin:     stdinW,
		stdout:    stdoutR,
		stderr:    stderrR,
		tail:      newTail(spec.StderrLines),
		drainDone: make(chan struct{}),
		reaped:    make(chan struct{}),
		done:      make(chan struct{}),
	}
	if err := p.attach(); err != nil {
		// Unsupervised, the server could outlive mcpdeck: refuse it.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pipes.closeAll()
		return nil, fmt.Errorf("starting %q: %w", spec.Path, err)
	}
	go p.drain()
	go p.wait()
	return p, nil
}

// Kill sends SIGKILL to the whole process group (on Windows: terminates
// the server's job) without waiting, as a crash would end it; Stop must
// still be called to reap it. It is what the compatibility check uses to
// drop a transport.
func (p *Process) Kill() error {
	if err := p.signalGroup(syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing %q (process group %d): %w", p.name, p.pid, err)
	}
	return nil
}

// ReleaseStdout closes the parent's read end of stdout once the process
// has exited, so that a pending read returns EOF although a descendant that
// left the process group (setsid, a detached spawn) still holds the pipe's
// write end and would keep it open forever. While the process runs it does
// nothing: its own exit ends stdout. Stop releases stdout in any case.
func (p *Process) ReleaseStdout() {
	select {
	case <-p.reaped:
		p.stdout.Close()
	default:
	}
}

// Pid returns the process id, which is also the id of its process group.
func (p *Process) Pid() int { return p.pid }

// Stdin returns the server's stdin. Closing it is the first step of Stop;
// closing it earlier is allowed and asks a well-behaved server to exit.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout returns the server's stdout. It reads EOF once the process and every
// other holder of the pipe have exited, and also once Stop has returned
// (unread output is then discarded).
func (p *Process) Stdout() io.Reader { return stdoutReader{p.stdout} }

// Done returns a channel closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit reports how the process ended: nil for exit status 0, otherwise an
// *ExitError. Before Done is closed it returns ErrRunning.
func (p *Process) Exit() error {
	select {
	case <-p.done:
		return p.exit
	default:
		return ErrRunning
	}
}

// StderrTail returns the last stderr lines (at most Spec.StderrLines), oldest first.
func (p *Process) StderrTail() []string { return p.tail.lines() }

// wait is the one goroutine per child that calls cmd.Wait. It records the
// exit before closing done, so Exit needs no lock.
func (p *Process) wait() {
	err := p.cmd.Wait()
	// Stop escalates on reaped, not done: the linger below must not be
	// mistaken for a process that ignores its stdin closing.
	close(p.reaped)
	linger := time.NewTimer(p.drainWait())
	select {
	case <-p.drainDone:
	case <-linger.C:
	}
	linger.Stop()
	p.exit = exitError(p.name, err, p.cmd.ProcessState, p.tail.lines())
	close(p.done)
}

// drainWait is how long to let the stderr drain reach EOF after the leader is
// reaped. When the group is empty nothing in it can hold the pipe open, so
// EOF is imminent and a slow, loaded machine gets a full Grace to deliver
// it; otherwise a grandchild likely holds stderr and only drainLinger is spent.
func (p *Process) drainWait() time.Duration {
	if p.groupGone() {
		return max(p.spec.Grace, drainLinger)
	}
	return drainLinger
}

// stdoutReader reports the close done by Stop as the end of the stream, which
// is what it is for a reader, rather than as a file error.
type stdoutReader struct{ f *os.File }

func (r stdoutReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	if errors.Is(err, os.ErrClosed) {
		err = io.EOF
	}
	return n, err
}

// pipeSet tracks the pipe ends created for one Start, so every error path
// closes them.
type pipeSet struct {
	all   []*os.File
	child []*os.File
}

func (s *pipeSet) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err == nil {
		s.all = append(s.all, r, w)
	}
	return r, w, err
}

func (s *pipeSet) closeChildEnds() {
	for _, f := range s.child {
		f.Close()
	}
}

func (s *pipeSet) closeAll() {
	for _, f := range s.all {
		f.Close()
	}
	s.child = nil
}

func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("working directory %q: %w: %w; create it or fix the server's \"cwd\"", dir, ErrBadDir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("working directory %q: %w: not a directory; fix the server's \"cwd\"", dir, ErrBadDir)
	}
	return nil
}

// startError turns an exec error into one that says what to do about it.
func startError(spec Spec, err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("starting %q: %w: it is not on PATH; install it, add its directory to PATH, or use an absolute path in the server's \"command\"", spec.Path, ErrNotFound)
	case errors.Is(err, exec.ErrDot):
		return fmt.Errorf("starting %q: %w: it was only found in the current directory, which is not searched; write ./%s or an absolute path", spec.Path, ErrNotFound, spec.Path)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("starting %q: %w: no such file (relative paths resolve against the server's \"cwd\"); check the server's \"command\"", spec.Path, ErrNotFound)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("starting %q: %w: permission denied; make it executable (chmod +x) or check the server's \"command\"", spec.Path, ErrNotExecutable)
	default:
		return fmt.Errorf("starting %q: %w", spec.Path, err)
	}
}
