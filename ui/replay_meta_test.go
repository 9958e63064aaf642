package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// recordAppSession records a real session against the TypeScript SDK v2
// peer, spoken to in era, with one call of its MCP App tool.
func recordAppSession(t *testing.T, era string) string {
	t.Helper()
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	e := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == jsonrpctest.EnvNodeModules {
			e[k] = v
		}
	}
	srv := config.Server{Name: "peer", Transport: config.TransportStdio, Command: path, Args: args, Env: e, Enabled: true,
		Protocol: era, StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second}
	cfg := &config.Config{Servers: []config.Server{srv}}
	rt := runtime.New(runtime.Options{Config: cfg, StopGrace: time.Second})
	file := t.TempDir() + "/app.jsonl"
	rec, err := record.Start(rt, record.Options{Path: file, Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Call(ctx, runtime.CallRequest{Server: "peer", Tool: "app"}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

// A recording keeps what the server said beyond the schema's plain fields:
// the replayed tool's details show its _meta, and the replayed call's
// result its _meta and its blocks' annotations, in both eras.
func TestReplayShowsMeta(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			rec, err := record.ReadFile(recordAppSession(t, era))
			if err != nil {
				t.Fatal(err)
			}
			calls := rec.CallsAt(len(rec.Entries) - 1)
			if len(calls) != 1 || calls[0].Result == nil || !strings.Contains(string(calls[0].Result.Meta), `"viewUUID":"view-0001"`) ||
				len(calls[0].Result.Content) != 1 || !strings.Contains(string(calls[0].Result.Content[0].Annotations), `"priority":0.5`) {
				t.Fatalf("the recorded call: %+v", calls)
			}
			hs, rp := startReplay(t, rec, 140, 40)
			// Back from the end (MCP off after the shutdown) to the last
			// moment the server was ready with the call finished, one
			// milestone at a time.
			hs.keys("$")
			tools := 0
			for back := 0; ; back++ {
				i := rp.Pos()
				if s := rec.SnapshotAt(i); s != nil && s.Enabled && len(s.Tools) > 0 && len(rec.CallsAt(i)) == 1 {
					tools = len(s.Tools)
					break
				}
				if back == 20 {
					t.Fatalf("no moment with the server ready and the call finished within 20 milestones of the end (at %d)", i)
				}
				hs.keys("{")
				hs.waitView("a step back", func(string) bool { return rp.Pos() != i })
			}
			hs.waitText("MCP ON", fmt.Sprintf("tools %d", tools))
			hs.keys("2", "tab", "/", "a", "p", "p", "enter", "d")
			hs.waitText("Tool peer › app", "── _meta", "ui://peer/app.html", "readOnlyHint")
			hs.keys("esc", "3")
			// The call's row in the history (an outstanding row may come
			// first, as the recording saw it), then its result again.
			if v := hs.waitText("history · 1 call"); !strings.Contains(v, "›1 ") {
				hs.keys("j")
				hs.waitText("›1 ")
			}
			hs.keys("enter")
			hs.waitText("Result of peer › app", "── _meta", `"view-0001"`, "annotations audience=[\"user\"] priority=0.5")
		})
	}
}
