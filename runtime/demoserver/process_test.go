package demoserver

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime/mcp"
)

// TestChildProcess runs the server as a real process on its real stdio (the
// test binary re-executed; see TestMain) and checks a full exchange and a
// clean exit 0 when its stdin closes.
func TestChildProcess(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race the child would otherwise linger a second at exit.
	cmd.Env = append(os.Environ(), childEnv+"=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string)
	go func() {
		// Read everything before Wait, as exec requires for StdoutPipe.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	reaped := false
	t.Cleanup(func() {
		// The child is still running only when the test failed early.
		if !reaped {
			cmd.Process.Kill()
			for range lines {
			}
			<-exited
			t.Logf("child stderr: %s", stderr.String())
		}
	})

	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the child closed stdout while a line was expected")
			}
			return l
		case <-time.After(waitFor):
			t.Fatalf("no line from the child within %v", waitFor)
			return ""
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	var init struct {
		ID     int                  `json:"id"`
		Result mcp.InitializeResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(next()), &init); err != nil || init.ID != 1 || init.Result.ProtocolVersion != "2024-11-05" {
		t.Fatalf("initialize = %+v (%v), want id 1 and protocol 2024-11-05", init, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from a child"}}}`)
	if l := next(); !strings.Contains(l, `"id":2`) || !strings.Contains(l, `"text":"from a child"`) {
		t.Fatalf("echo = %s", l)
	}

	stdin.Close()
	select {
	case l, ok := <-lines:
		if ok {
			t.Fatalf("unexpected output after stdin EOF: %s", l)
		}
	case <-time.After(waitFor):
		t.Fatal("the child did not close stdout after stdin EOF")
	}
	select {
	case err := <-exited:
		reaped = true
		if err != nil {
			t.Fatalf("the child exited with %v, want 0; stderr: %s", err, stderr.String())
		}
	case <-time.After(waitFor):
		t.Fatal("the child did not exit after stdin EOF")
	}
}
