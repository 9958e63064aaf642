package gateway

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// envRelay makes the test binary a stdio relay: it connects its stdin and
// stdout to the unix socket the variable names, where a test serves the
// gateway with ServeStdio. A client that spawns its server (the TypeScript
// SDK's StdioClientTransport) then talks over real pipes to a real process
// while the runtime stays in the test, where the test can toggle it.
const envRelay = "MCPDECK_GATEWAY_TEST_RELAY"

func maybeRelay() {
	path := os.Getenv(envRelay)
	if path == "" {
		return
	}
	conn, err := net.Dial("unix", path)
	if err != nil {
		os.Stderr.WriteString("relay: " + err.Error() + "\n")
		os.Exit(1)
	}
	go func() {
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.UnixConn).CloseWrite()
	}()
	_, _ = io.Copy(os.Stdout, conn)
	os.Exit(0)
}

// relay serves g on a unix socket for relay processes and returns the
// command line and environment that start one.
func relay(t testing.TB, g *Gateway) (path string, args, env []string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gw-relay-") // short: unix socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { _ = g.ServeStdio(context.Background(), conn, conn) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
		os.RemoveAll(dir)
	})
	exe, _ := os.Executable()
	return exe, []string{"-test.run=^$"}, []string{envRelay + "=" + sock, "GORACE=atexit_sleep_ms=0"}
}
