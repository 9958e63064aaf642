package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// The real 2026-07-28 peers through the whole runtime: the TypeScript SDK
// v2 servers (dual-era and modern-only, on stdio and Streamable HTTP) and
// the go-sdk v1.8.0 server (stdio and HTTP). Each: the era, the tools, a
// call, an MRTR elicitation round, a list change through listen,
// progress, logs at a chosen level and cancellation.

type modernPeer struct {
	name string
	cfg  func(t *testing.T) config.Server
	// listChangeLate: go-sdk may announce a list change after the
	// response of the call that caused it.
	cancelLog string // what the peer writes to stderr when a call is cancelled ("" over HTTP)
}

func modernPeers() []modernPeer {
	stdio := func(path string, args, env []string) config.Server {
		vars := map[string]string{}
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && (k == jsonrpctest.EnvNodeModules || k == jsonrpctest.EnvMode || k == "GORACE") {
				vars[k] = v
			}
		}
		return config.Server{Transport: config.TransportStdio, Command: path, Args: args, Env: vars}
	}
	http := func(url string) config.Server {
		return config.Server{Transport: config.TransportHTTP, URL: url, TransportInferred: true}
	}
	return []modernPeer{
		{name: "ts-dual-stdio", cancelLog: "cancelled ", cfg: func(t *testing.T) config.Server {
			return stdio(jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra))
		}},
		{name: "ts-modern-stdio", cancelLog: "cancelled ", cfg: func(t *testing.T) config.Server {
			return stdio(jsonrpctest.TSServerStdio(t, jsonrpctest.ModernEra))
		}},
		{name: "gosdk-stdio", cancelLog: "cancelled slow", cfg: func(t *testing.T) config.Server {
			path, args, _ := jsonrpctest.Command(jsonrpctest.GoSDKModern)
			s := config.Server{Transport: config.TransportStdio, Command: path, Args: args, Env: jsonrpctest.ServerEnv(jsonrpctest.GoSDKModern)}
			return s
		}},
		{name: "ts-dual-http", cfg: func(t *testing.T) config.Server { return http(jsonrpctest.TSServerHTTP(t, jsonrpctest.DualEra)) }},
		{name: "ts-modern-http", cfg: func(t *testing.T) config.Server { return http(jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra)) }},
		{name: "gosdk-http", cfg: func(t *testing.T) config.Server { return http(jsonrpctest.GoSDKHTTP(t)) }},
	}
}

func TestModernPeersThroughTheRuntime(t *testing.T) {
	t.Parallel()
	for _, p := range modernPeers() {
		t.Run(p.name, func(t *testing.T) {
			srv := p.cfg(t)
			srv.Name, srv.Enabled = "peer", true
			srv.StartupTimeout, srv.CallTimeout = 30*time.Second, 30*time.Second
			el := &nameElicitor{name: "octocat"}
			c := modernController(t, el, srv) // log level: warning
			rec := record(t, c)
			enable(t, c)
			v := serverOf(t, c, "peer")
			if v.State != StateReady || v.Era != EraModern || v.ProtocolVersion != mcp.LatestModern {
				t.Fatalf("%s %s %s (%s) %+v", v.State, v.Era, v.ProtocolVersion, v.EraReason, v.LastError)
			}
			names := toolNames(v.Tools)
			for _, want := range []string{"echo", "region_echo", "ask", "add_tool", "slow", "log"} {
				if !strings.Contains(names, "peer__"+want) {
					t.Fatalf("tools %s; want %s", names, want)
				}
			}
			ctx := ctxFor(t, 60*time.Second)

			// A call; over HTTP region_echo carries Mcp-Param-Region, which
			// the servers check against the body.
			res, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "region_echo", Arguments: json.RawMessage(`{"region":"eu-west-1","text":"hi"}`)})
			if err != nil || text(t, res) != "region=eu-west-1 text=hi" {
				t.Fatalf("region_echo: %+v, %v", res, err)
			}

			// MRTR: one elicitation round.
			res, err = c.Call(ctx, CallRequest{Server: "peer", Tool: "ask"})
			if err != nil || text(t, res) != "Hello, octocat!" || res.Rounds != 2 || el.asked.Load() != 1 {
				t.Fatalf("ask: %+v (rounds %d, asked %d), %v", res, res.Rounds, el.asked.Load(), err)
			}

			// A list change through listen.
			rec.waitAny(t, "listen acknowledged", func(e Event) bool { l, ok := e.(ListenChanged); return ok && l.Listen.State == ListenOpen })
			if _, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "add_tool", Arguments: json.RawMessage(`{"name":"extra"}`)}); err != nil {
				t.Fatal(err)
			}
			rec.waitAny(t, "tools relisted", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" })
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(toolNames(serverOf(t, c, "peer").Tools), "peer__extra") {
				if time.Now().After(deadline) {
					t.Fatalf("the added tool was never listed: %s", toolNames(serverOf(t, c, "peer").Tools))
				}
				rec.waitFor(t, "a publication", func(e Event) bool { _, ok := e.(Published); return ok })
			}

			// Logs at the chosen level (warning), on the call's own stream.
			if _, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "log", Arguments: json.RawMessage(`{"message":"m"}`)}); err != nil {
				t.Fatal(err)
			}
			var levels []string
			for len(levels) < 2 {
				levels = append(levels, rec.waitFor(t, "log messages", func(e Event) bool { _, ok := e.(LogMessage); return ok }).(LogMessage).Level)
			}
			if fmt.Sprint(levels) != "[warning error]" {
				t.Fatalf("log levels %v at warning", levels)
			}

			// Progress, then cancellation mid-way.
			ids := make(chan uint64, 4)
			errc := make(chan error, 1)
			go func() {
				_, err := c.Call(context.Background(), CallRequest{Server: "peer", Tool: "slow", Arguments: json.RawMessage(`{"seconds":20}`), OnStarted: func(id uint64) { ids <- id }})
				errc <- err
			}()
			id := <-ids
			rec.waitFor(t, "progress of slow", func(e Event) bool { p, ok := e.(Progress); return ok && p.RequestID == id })
			c.Cancel("peer", id, "interop test cancels")
			if err := <-errc; !errors.Is(err, ErrCancelled) {
				t.Fatalf("cancelled slow: %v", err)
			}
			if p.cancelLog != "" {
				waitStderr(t, rec, "peer", p.cancelLog)
			}
			res, err = c.Call(ctx, CallRequest{Server: "peer", Tool: "echo", Arguments: json.RawMessage(`{"text":"still here"}`)})
			if err != nil || text(t, res) != "still here" {
				t.Fatalf("echo after the cancellation: %+v, %v", res, err)
			}
		})
	}
}

// TestDualEraPeerSpeaksLegacyWhenAsked: the dual-era TypeScript server
// under protocol legacy is initialized like any 2025-11-25 server.
func TestDualEraPeerSpeaksLegacyWhenAsked(t *testing.T) {
	t.Parallel()
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	srv := config.Server{Name: "dual", Transport: config.TransportStdio, Command: path, Args: args, Enabled: true, Protocol: "legacy",
		StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second, Env: map[string]string{jsonrpctest.EnvNodeModules: envOf(env, jsonrpctest.EnvNodeModules)}}
	c := modernController(t, &nameElicitor{name: "legacy"}, srv)
	enable(t, c)
	if v := serverOf(t, c, "dual"); v.Era != EraLegacy || v.ProtocolVersion != mcp.LatestLegacy {
		t.Fatalf("%s %s %s", v.State, v.Era, v.ProtocolVersion)
	}
	res, err := c.Call(ctxFor(t, 30*time.Second), CallRequest{Server: "dual", Tool: "echo", Arguments: json.RawMessage(`{"text":"old"}`)})
	if err != nil || text(t, res) != "old" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
}

func envOf(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return os.Getenv(key)
}
