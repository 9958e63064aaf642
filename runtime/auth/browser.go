package auth

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// reapers counts the goroutines waiting for browser commands, so tests can
// wait for them to end.
var reapers sync.WaitGroup

// OpenBrowser shows url to the person: $BROWSER when set (each of its
// colon-separated commands in turn, with the URL as the one argument), else
// xdg-open, or open on macOS. It returns once the command started; the
// command's output is discarded, since a TUI may own the terminal. The URL
// is also always reported through Options.OnURL, so a headless machine's
// user can open it elsewhere: failing to start a browser is not fatal.
func OpenBrowser(url string) error {
	var cmds []string
	if b := os.Getenv("BROWSER"); b != "" {
		cmds = strings.Split(b, ":")
	} else if runtime.GOOS == "darwin" {
		cmds = []string{"open"}
	} else {
		cmds = []string{"xdg-open"}
	}
	var errs []error
	for _, c := range cmds {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		cmd := exec.Command(c, url)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		if err := cmd.Start(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", c, err))
			continue
		}
		reapers.Add(1)
		go func() { // reap it; a browser may outlive the login
			defer reapers.Done()
			_ = cmd.Wait()
		}()
		return nil
	}
	if len(errs) == 0 {
		return errors.New("no browser command: set $BROWSER")
	}
	return fmt.Errorf("starting a browser: %w; open the URL by hand", errors.Join(errs...))
}
