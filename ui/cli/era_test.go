package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// How the era was decided, on the built binary: servers --json and the
// table say it, and a legacy server that is silent on server/discover is
// remembered in the state directory, so the next run does not probe it.
func TestServersRememberTheEra(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"silent": srvFake(jsonrpctest.LegacySilentDiscover)})
	r := h.run(t, "", "servers", "--json")
	wantCode(t, r, ExitOK)
	if s := decodeServers(t, r).Servers[0]; s.Era != "legacy" || s.EraDecision != "probed-timeout" || !strings.Contains(s.EraReason, "no answer to server/discover") {
		t.Fatalf("first run: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "xdg-state", "mcpdeck", "eras.json")); err != nil {
		t.Fatalf("the era memory was not written: %v", err)
	}
	r = h.run(t, "", "servers", "--json")
	wantCode(t, r, ExitOK)
	if s := decodeServers(t, r).Servers[0]; s.Era != "legacy" || s.EraDecision != "remembered" || !strings.Contains(s.EraReason, "remembered as legacy") {
		t.Fatalf("second run: %+v", s)
	}
	// On the wire (a recorded call): initialize at once, no probe.
	file := filepath.Join(h.dir, "call.jsonl")
	wantCode(t, h.run(t, "", "call", "silent", "echo", `{"text":"hi"}`, "--record", file), ExitOK)
	rec, err := record.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, e := range rec.Entries {
		if f, ok := e.Event.(runtime.TrafficFrame); ok && f.Frame.Dir == runtime.Out && f.Frame.Method != "" {
			sent = append(sent, f.Frame.Method)
		}
	}
	if len(sent) == 0 || sent[0] != "initialize" || slices.Contains(sent, "server/discover") {
		t.Fatalf("a server remembered as legacy was sent %v; want initialize first and no server/discover", sent)
	}
	r = h.run(t, "", "servers")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "DECIDED") || !strings.Contains(r.stdout, "remembered") {
		t.Fatalf("the table does not say how the era was decided:\n%s", r.stdout)
	}
}

// tsSlowPeer is a TypeScript SDK v2 server of era that handles nothing
// for 3 s, as an mcp.json entry; with readEarly it reads its stdin
// meanwhile.
func tsSlowPeer(t testing.TB, era jsonrpctest.Era, readEarly bool) map[string]any {
	extra := []string{"--delay-ms", "3000"}
	if readEarly {
		extra = append(extra, "--read-early")
	}
	path, args, env := jsonrpctest.TSServerStdio(t, era, extra...)
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == jsonrpctest.EnvNodeModules {
			vars[k] = v
		}
	}
	return map[string]any{"command": path, "args": args, "env": vars, "startupTimeout": "45s"}
}

// A slow-starting dual-era server is served by the gateway in the era
// servers reports: modern, as the server itself confirms (the instance that
// answers through the gateway is its modern one), and the gateway's
// metrics say so too. The server reads its stdin while it starts, so the
// fallback's initialize reaches it and the late discovery result has to
// win (by starting it again).
func TestSlowDualEraPeerSameEraInServersAndGateway(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"slow": tsSlowPeer(t, jsonrpctest.DualEra, true)})
	// Each process decides on its own: no era memory shared between them.
	fresh := func(name string) []string {
		return append(h.env, "XDG_STATE_HOME="+filepath.Join(h.dir, name))
	}

	r := runBin(t, h.dir, fresh("state-servers"), "", "--config", h.cfg, "servers", "--json")
	wantCode(t, r, ExitOK)
	s := decodeServers(t, r).Servers[0]
	if s.Era != "modern" || s.ProtocolVersion != "2026-07-28" || s.EraDecision != "switched" {
		t.Fatalf("servers: %+v", s)
	}

	g := startGatewayHTTPEnv(t, fresh("state-gateway"), h.cfg, "--metrics", "127.0.0.1:0")
	fams := waitMetrics(t, g.metrics, "the server's era", func(f map[string]*dto.MetricFamily) bool {
		_, ok := metricValue(f, "mcpdeck_server_info", map[string]string{"mcpdeck_server_name": "slow", "mcpdeck_protocol_era": "modern"})
		return ok
	})
	if _, ok := metricValue(fams, "mcpdeck_server_info", map[string]string{"mcpdeck_server_name": "slow", "mcpdeck_protocol_era": "legacy"}); ok {
		t.Fatal("the gateway reports the server as legacy")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := g.client(t, ctx, "era-client")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow__served_era", Arguments: map[string]any{}})
	if err != nil || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "modern" {
		t.Fatalf("served_era through the gateway: %v %+v; want modern", err, res)
	}
	cs.Close()
	g.stop(t)
}
