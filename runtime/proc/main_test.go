//go:build linux

package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The test binary doubles as every child process the tests need: TestMain
// runs a child mode instead of the tests when modeEnv is set.
const (
	modeEnv  = "PROC_TEST_MODE"
	afterEnv = "PROC_TEST_AFTER"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		runChild(mode)
		os.Exit(0)
	}
	// Supervision (the watchdog, and on Linux the subreaper) is set up in
	// the background at the first Start; tests about adopted orphans need
	// it in place from the start.
	platformInit()
	<-supervisionReady()
	goleak.VerifyTestMain(m)
}

// runChild implements the child modes. A mode that installs signal handling
// prints "ready" afterwards, so a test never signals a child before it is set up.
func runChild(mode string) {
	switch mode {
	case "echo": // a well-behaved server: exits when stdin closes
		io.Copy(os.Stdout, os.Stdin)
	case "ignore-eof": // survives stdin EOF, dies on SIGTERM
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		hang()
	case "ignore-term": // survives stdin EOF and SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		hang()
	case "hang": // a grandchild: ignores SIGTERM and never reads stdin
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		hang()
	case "spawn": // starts a "hang" grandchild in its own group, then exits per afterEnv
		spawn()
	case "panic": // a Go server that panics: the runtime prints the panic, then the goroutine dump
		fmt.Fprintln(os.Stderr, "serving on stdio")
		var notes map[string]string
		//lint:ignore SA5000 the nil-map panic is what this mode is for
		notes["k"] = "v"
	case "fail":
		fmt.Println("hello")
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "fatal: boom")
		os.Exit(3)
	case "env":
		wd, _ := os.Getwd()
		fmt.Printf("var=%s\nleak=%s\ncwd=%s\n", os.Getenv("PROC_TEST_VAR"), os.Getenv("PROC_TEST_LEAK"), wd)
	case "longline":
		w := bufio.NewWriter(os.Stderr)
		// The rune straddles the MaxLineBytes cut, which must not split it.
		w.WriteString(strings.Repeat("x", MaxLineBytes-1) + "é" + strings.Repeat("y", 3*MaxLineBytes))
		w.WriteString("\nshort\n")
		for i := range 1000 {
			fmt.Fprintf(w, "line %d\n", i)
		}
		w.Flush()
	case "spawn-setsid": // like spawn, but the grandchild leaves the group (setsid) first
		spawn()
	case "spawn-setsid-thread": // like spawn-setsid, forked from a thread that is not the main one
		onOtherThread(spawn)
	case "threads": // a server with several OS threads, as Go and Node servers have: echoes
		startThreads(8)
		fmt.Println("ready")
		io.Copy(os.Stdout, os.Stdin)
	case "trail": // a grandchild reading the same stdin, which exits a moment after its parent
		gc := exec.Command(self())
		gc.Env = childEnv("trailer")
		gc.Stdin = os.Stdin
		if err := gc.Start(); err != nil {
			os.Exit(1)
		}
		fmt.Printf("gc %d\n", gc.Process.Pid)
		io.Copy(io.Discard, os.Stdin)
	case "trailer":
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(100 * time.Millisecond) // it trails, on purpose: the test is about that moment
	case "spawn-exit-gc": // a middle child that exits at once leaves an orphan that exits after its report is read
		spawnOrphan()
		io.Copy(io.Discard, os.Stdin)
	case "orphan-parent": // starts a short-lived child and exits, orphaning it
		c := exec.Command(self())
		c.Env = childEnv("short")
		c.Stdout = os.Stdout
		if err := c.Start(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "short": // reports its pid, lives a moment (orphaned by then), exits
		fmt.Printf("orphan %d\n", os.Getpid())
		time.Sleep(200 * time.Millisecond)
	case "spawn-stay": // starts a "hang" grandchild in its own group, reports it, and stays
		signal.Ignore(syscall.SIGTERM)
		spawn()
	case "middle-gc", "middle-wd": // starts "spawn-stay" through Start, reports both pids (middle-wd: its watchdog's too, and every watchdog started anew), then waits to be killed
		if mode == "middle-wd" {
			watchdog.mu.Lock()
			watchdog.restarted = func(pid int) { fmt.Printf("restarted %d\n", pid) }
			watchdog.mu.Unlock()
		}
		p, err := Start(Spec{Path: self(), Env: childEnv("spawn-stay", afterEnv+"=stay")})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
		fmt.Printf("%d %s", p.Pid(), line)
		if mode == "middle-wd" {
			fmt.Printf("watchdog %d\n", WatchdogPid())
		}
		hang()
	case "prepared": // Prepare only, no Start: reports the watchdog's pid once it runs, then waits to be killed
		Prepare()
		<-supervisionReady()
		fmt.Printf("watchdog %d\n", WatchdogPid())
		hang()
	case "middle": // starts a child through Start, reports its pid, then waits to be killed
		p, err := Start(Spec{Path: self(), Env: childEnv("hang")})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
		if line != "ready\n" {
			os.Exit(1)
		}
		fmt.Println(p.Pid())
		hang()
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
}

func spawn() {
	gc := exec.Command(self())
	gc.Env = childEnv("hang")
	gc.Stderr = os.Stderr // holds the supervised stderr pipe open, like real grandchildren do
	if strings.HasPrefix(os.Getenv(modeEnv), "spawn-setsid") {
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	out, err := gc.StdoutPipe()
	if err != nil {
		os.Exit(1)
	}
	if err := gc.Start(); err != nil {
		os.Exit(1)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		os.Exit(1)
	}
	fmt.Printf("gc %d\n", gc.Process.Pid)
	switch os.Getenv(afterEnv) {
	case "eof":
		io.Copy(io.Discard, os.Stdin)
	case "stay":
		hang()
	}
	os.Exit(0)
}

// onOtherThread runs f on an OS thread other than the process's main one,
// which is the thread whose children /proc/PID/task/PID/children lists.
func onOtherThread(f func()) {
	done := make(chan struct{})
	for {
		found := make(chan bool)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread is not reused
			if syscall.Gettid() == os.Getpid() {
				found <- false
				<-done // keep the main thread taken, so the next try gets another
				return
			}
			found <- true
			f()
		}()
		if <-found {
			select {} // f exits the process
		}
	}
}

// startThreads makes the process hold n more OS threads, each blocked.
func startThreads(n int) {
	for range n {
		ready := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(ready)
			select {}
		}()
		<-ready
	}
}

// spawnOrphan runs "orphan-parent", which starts "short" and exits, so
// "short" is orphaned while this server keeps running.
func spawnOrphan() {
	c := exec.Command(self())
	c.Env = childEnv("orphan-parent")
	c.Stdout = os.Stdout
	if err := c.Run(); err != nil {
		os.Exit(1)
	}
}

func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

func self() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}

// childEnv is the inherited environment plus the child mode and extras.
// Under -race a child would otherwise linger a second at exit (the race
// runtime's atexit_sleep_ms), longer than the short grace the tests use.
func childEnv(mode string, extra ...string) []string {
	env := append(os.Environ(), modeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return append(env, extra...)
}
