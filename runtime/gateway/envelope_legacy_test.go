package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestLegacyClientGetsNoModernEnvelope: a session-era client reading a
// resource or getting a prompt of a 2026-07-28 server was handed the
// server's raw result with resultType, ttlMs and cacheScope, members its
// revision does not have (found by qa3 with the TypeScript SDK v2 peer).
// They are left out; the server's own members, _meta among them, stay.
func TestLegacyClientGetsNoModernEnvelope(t *testing.T) {
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.ModernEra)
	modules := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, jsonrpctest.EnvNodeModules+"="); ok {
			modules = v
		}
	}
	srv := config.Server{Name: "ts", Transport: config.TransportStdio, Command: path, Args: args, Enabled: true,
		Env:            map[string]string{jsonrpctest.EnvNodeModules: modules},
		StartupTimeout: time.Minute, CallTimeout: 30 * time.Second}
	rt := newRuntime(t, srv)
	g := newGateway(t, rt, Options{})

	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(context.Background(), sr, sw) }()
	defer func() {
		cw.Close()
		<-done
	}()
	in := bufio.NewScanner(cr)
	in.Buffer(nil, 1<<20)
	ask := func(id int, method string, params any) map[string]json.RawMessage {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := cw.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for in.Scan() {
			var msg struct {
				ID     *int                       `json:"id"`
				Result map[string]json.RawMessage `json:"result"`
				Error  json.RawMessage            `json:"error"`
			}
			if json.Unmarshal(in.Bytes(), &msg) == nil && msg.ID != nil && *msg.ID == id {
				if msg.Error != nil {
					t.Fatalf("%s: %s", method, msg.Error)
				}
				return msg.Result
			}
		}
		t.Fatalf("%s: no answer (%v)", method, in.Err())
		return nil
	}
	ask(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	cw.Write(append(b, '\n'))

	for i, req := range []struct {
		method string
		params map[string]any
		keep   string
	}{
		{"resources/read", map[string]any{"uri": "ui://peer/app.html"}, "contents"},
		{"prompts/get", map[string]any{"name": "ts__review", "arguments": map[string]any{"code": "x"}}, "messages"},
	} {
		res := ask(2+i, req.method, req.params)
		for _, k := range modernEnvelope {
			if v, ok := res[k]; ok {
				t.Errorf("%s: a 2025-11-25 client was handed %s %s", req.method, k, v)
			}
		}
		if res[req.keep] == nil {
			t.Errorf("%s: the server's %s were lost: %v", req.method, req.keep, res)
		}
	}
}
