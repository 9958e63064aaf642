//go:build unix

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// children lists the live child processes of this test process.
func children(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := strconv.Itoa(os.Getpid())
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == me && f[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestChildPolicy(t *testing.T) {
	c := newController(t, fakeServer("a", jsonrpctest.Normal))

	// Under a disabled parent, even inherit gives nothing, and starts
	// nothing. (Counted against the processes there were already: the
	// process supervisor's watchdog, started by any earlier test that
	// spawned a server, lives as long as the test binary.)
	already := len(children(t))
	if tools := c.Child(PolicyInherit).Tools(); len(tools) != 0 || len(children(t)) != already {
		t.Fatalf("child of a disabled parent: %d tools, %d processes (%d before)", len(tools), len(children(t)), already)
	}

	enable(t, c)
	before := children(t)
	inherit := c.Child(PolicyInherit)
	if got, want := toolNames(inherit.Tools()), toolNames(c.Snapshot().Tools); got != want || got == "" {
		t.Fatalf("inherited tools %q, parent has %q", got, want)
	}
	res, err := inherit.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "a", Tool: "echo", Arguments: json.RawMessage(`{"text":"via parent"}`)})
	if err != nil || !strings.Contains(res.Content[0].Text, "via parent") {
		t.Fatalf("proxied call: %+v, %v", res, err)
	}
	if after := children(t); len(after) != len(before) {
		t.Fatalf("the child started processes: %v → %v", before, after)
	}
	for _, p := range []Policy{PolicyOmitted, PolicyDisabled} {
		ch := c.Child(p)
		if len(ch.Tools()) != 0 {
			t.Fatalf("policy %s got tools", p)
		}
		if _, err := ch.Call(context.Background(), CallRequest{Server: "a", Tool: "echo"}); !errors.Is(err, ErrNotEnabled) {
			t.Fatalf("policy %s call: %v", p, err)
		}
	}

	// Disabling the parent withdraws the child's proxies in the withdrawal
	// publication, before any server starts stopping.
	ch, cancel := c.Subscribe(SubscribeOptions{Lossless: true})
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.SetEnabled(context.Background(), false) }()
	for e := range ch {
		if p, ok := e.(Published); ok && !p.Enabled {
			if len(inherit.Tools()) != 0 {
				t.Fatal("child still has tools after the withdrawal publication")
			}
			if v, _ := p.Snapshot.Server("a"); v.State != StateReady || len(p.Snapshot.Tools) != 0 {
				t.Fatalf("withdrawal publication: server %s, %d tools; want ready with none published", v.State, len(p.Snapshot.Tools))
			}
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
