//go:build unix

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// The watchdog kills every server's process group when mcpdeck dies, also
// when mcpdeck is SIGKILLed and runs no code at all. The parent-death
// signal reaches only a server's direct child; grandchildren in its group
// (a wrapper's real server, a helper that ignores SIGTERM) would survive.
//
// It is one small process per mcpdeck: a POSIX shell running
// watchdogScript, a child of mcpdeck in a process group of its own (so a
// terminal's ctrl+c does not reach it). A shell, not mcpdeck re-executed:
// it starts in a millisecond, where a second copy of a 27 MB Go program
// costs a one-shot command several. It reads "+PGID" and "-PGID" lines
// from a pipe whose only write end mcpdeck holds. When mcpdeck exits,
// however it exits, the kernel closes that end; the watchdog reads EOF and
// sends SIGKILL to every group still registered. A group is unregistered
// only once Stop saw it empty, and a group id cannot be reused while any
// member lives (on Linux mcpdeck is also a subreaper, so orphaned members
// stay its zombies until Stop reaps them), so the watchdog never signals a
// stranger's group.
//
// The watchdog ignores the terminal's signals: only the pipe ends it.
// Nothing in it needs Linux, so macOS gets the same guarantee, a few
// milliseconds after mcpdeck's death rather than at once.
//
// The watchdog can still be killed (SIGKILL, an OOM killer). mcpdeck
// notices and starts a new one, handing it every group still registered:
// on Linux at once (its death is a SIGCHLD, which the reaper of adopted
// orphans hears while any server runs), elsewhere at the next server start
// or stop (the write to the dead watchdog's pipe fails). An mcpdeck killed
// in between has no watchdog: its servers still die of the parent-death
// signal on Linux, their grandchildren do not. SECURITY.md says so.
const watchdogScript = `trap '' INT TERM HUP QUIT PIPE TSTP
g=' '
while IFS= read -r l; do
  p=${l#?}
  case $p in ''|*[!0-9]*) continue ;; esac
  case $l in
    +*) g="$g$p " ;;
    -*) case $g in *" $p "*) g="${g%% $p *} ${g#* $p }" ;; esac ;;
  esac
done
for p in $g; do [ "$p" -gt 1 ] && kill -s KILL -- "-$p" 2>/dev/null; done
exit 0
`

// startSupervision spawns the watchdog, once; platformInit calls it from
// Prepare's goroutine or at the first Start, whichever comes first, and a
// concurrent caller waits for the spawn. It does not wait for the shell to
// be reading: registrations wait in the pipe. after runs once the spawn is
// done (on Linux: becoming a subreaper, which must not precede it).
func startSupervision(after func()) {
	watchdog.once.Do(func() { startWatchdog(after) })
}

// watchdog is this process's connection to its watchdog.
var watchdog struct {
	once sync.Once
	mu   sync.Mutex
	w    *os.File // write end of the pipe; nil when the watchdog is unavailable
	pid  int      // the watchdog's process id, a child of this process
	err  error    // why it is unavailable
	// groups are the groups registered, for a watchdog started anew.
	groups map[int]bool
	// restarted, when set (tests), hears of each watchdog started anew.
	restarted func(pid int)
}

// WatchdogPid is the process id of this process's watchdog, 0 when none
// runs: it is a child of this process, and not one of its servers.
func WatchdogPid() int {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	return watchdog.pid
}

// supervisionReady is closed once supervision is fully set up (the
// watchdog running, on Linux the subreaper set); tests wait on it.
func supervisionReady() <-chan struct{} { return supervised }

// supervised is closed once the watchdog started (or failed to) and
// startSupervision's after ran. It exists from the start, so that a
// reader does not depend on which goroutine began supervision (Prepare's).
var supervised = make(chan struct{})

// watch registers a process group with the watchdog, starting the watchdog
// on first use. A watchdog that cannot start (the executable was deleted
// by an upgrade) costs the guarantee for a killed mcpdeck, not the server.
func watch(pgid int) { sendWatchdog('+', pgid) }

// unwatch unregisters a process group that Stop found empty.
func unwatch(pgid int) { sendWatchdog('-', pgid) }

func sendWatchdog(op byte, pgid int) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.groups == nil {
		watchdog.groups = map[int]bool{}
	}
	if op == '+' {
		watchdog.groups[pgid] = true
	} else {
		delete(watchdog.groups, pgid)
	}
	if watchdog.w == nil {
		return
	}
	if err := writeWatchdog(op, pgid); err != nil {
		// Its read end is closed: the watchdog died (its shell holds that
		// end until it exits). Start another with every group.
		restartWatchdogLocked(fmt.Sprintf("writing to it failed: %v", err))
	}
}

// writeWatchdog sends one line; watchdog.mu is held. One short write:
// atomic on a pipe, and the pipe buffer holds thousands of these even if
// the watchdog is slow to read.
func writeWatchdog(op byte, pgid int) error {
	_, err := watchdog.w.WriteString(string(op) + strconv.Itoa(pgid) + "\n")
	return err
}

// checkWatchdog starts a new watchdog if the running one died; the Linux
// reaper calls it on SIGCHLD. The watchdog is a child never waited for,
// so its death leaves a zombie that only this wait takes.
func checkWatchdog() {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.pid == 0 {
		return
	}
	var ws syscall.WaitStatus
	if pid, err := syscall.Wait4(watchdog.pid, &ws, syscall.WNOHANG, nil); err != nil || pid != watchdog.pid {
		return // still running
	}
	watchdog.pid = 0 // reaped: the number may be anyone's now
	restartWatchdogLocked(describeWait(ws))
}

// describeWait words how a watchdog ended.
func describeWait(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "it was killed by " + ws.Signal().String()
	}
	return "it exited with status " + strconv.Itoa(ws.ExitStatus())
}

// restartWatchdogLocked replaces a dead watchdog and registers every group
// with the new one; watchdog.mu is held.
func restartWatchdogLocked(why string) {
	if watchdog.w != nil {
		watchdog.w.Close()
	}
	if old := watchdog.pid; old != 0 {
		// Its pipe is closed: it has exited, and is reaped here at once.
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(old, &ws, 0, nil)
	}
	watchdog.w, watchdog.pid = nil, 0
	w, pid, err := spawnWatchdog()
	if err != nil {
		watchdog.err = fmt.Errorf("the process watchdog died (%s) and could not be started again: %w", why, err)
		return
	}
	watchdog.w, watchdog.pid, watchdog.err = w, pid, nil
	for g := range watchdog.groups {
		if err := writeWatchdog('+', g); err != nil {
			watchdog.err = fmt.Errorf("the process watchdog died (%s) and its successor did not take the groups: %w", why, err)
			return
		}
	}
	if watchdog.restarted != nil {
		watchdog.restarted(pid)
	}
}

// WatchdogErr reports why the watchdog is not running, or nil when it is
// (or was never needed yet). Without it, a grandchild of a server may
// outlive an mcpdeck that is killed with SIGKILL.
func WatchdogErr() error {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	return watchdog.err
}

// startWatchdog starts the watchdog, records a failure, and runs after.
func startWatchdog(after func()) {
	w, pid, err := spawnWatchdog()
	watchdog.mu.Lock()
	if err != nil {
		watchdog.err = fmt.Errorf("starting the process watchdog: %w", err)
	} else {
		watchdog.w, watchdog.pid = w, pid
	}
	watchdog.mu.Unlock()
	after()
	close(supervised)
}

// spawnWatchdog starts a watchdog process and returns the write end of its
// pipe and its pid.
func spawnWatchdog() (*os.File, int, error) {
	const sh = "/bin/sh"
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	// Started directly, in a process group of its own, and never waited
	// for but by checkWatchdog: it ends when this process is gone.
	cmd := exec.Command(sh, "-c", watchdogScript, "mcpdeck-watchdog")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, 0, fmt.Errorf("%s: %w", sh, err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return w, pid, nil
}
