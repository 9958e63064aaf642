package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// BenchmarkEraTimeToReady times `mcpdeck servers --json` as a whole process
// (start, era negotiation, listing, one ping, stop) against servers whose
// era is hard to find: a legacy server silent on server/discover, and
// TypeScript SDK v2 servers (modern-only and dual-era) that handle nothing
// for 3 s (and read nothing, or, read-early, read their stdin meanwhile). "first" runs with an empty state directory, "remembered" with
// the era memory a first run left. ready/op and modern/op say how many runs
// ended ready and in the modern era. MCPDECK_BENCH_BIN times another build
// (main's, for the figures before a change):
//
//	go test ./ui/cli -run '^$' -bench EraTimeToReady -benchtime 5x
//	MCPDECK_BENCH_BIN=/tmp/mcpdeck-main go test ./ui/cli -run '^$' -bench EraTimeToReady -benchtime 5x
func BenchmarkEraTimeToReady(b *testing.B) {
	bin := os.Getenv("MCPDECK_BENCH_BIN")
	if bin == "" {
		bin = mcpdeckBin(b)
	}
	for _, srv := range []struct {
		name string
		def  func() map[string]any
	}{
		{"legacy-silent", func() map[string]any { return srvFake(jsonrpctest.LegacySilentDiscover) }},
		{"ts-modern-slow", func() map[string]any { return tsSlowPeer(b, jsonrpctest.ModernEra, false) }},
		{"ts-dual-slow", func() map[string]any { return tsSlowPeer(b, jsonrpctest.DualEra, false) }},
		{"ts-dual-slow-read-early", func() map[string]any { return tsSlowPeer(b, jsonrpctest.DualEra, true) }},
	} {
		for _, phase := range []string{"first", "remembered"} {
			b.Run(srv.name+"/"+phase, func(b *testing.B) {
				dir := b.TempDir()
				cfg := filepath.Join(dir, "mcp.json")
				data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"s": srv.def()}})
				if err := os.WriteFile(cfg, data, 0o600); err != nil {
					b.Fatal(err)
				}
				state := filepath.Join(dir, "state")
				run := func() (ready, modern bool) {
					cmd := exec.Command(bin, "--config", cfg, "servers", "--json")
					cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "HOME="+dir)
					out, _ := cmd.Output() // a failed server exits 3 and is counted, not fatal
					var res serversOutput
					if json.Unmarshal(out, &res) != nil || len(res.Servers) != 1 {
						b.Fatalf("servers --json printed %q", out)
					}
					return res.Servers[0].State == "ready", res.Servers[0].Era == "modern"
				}
				if phase == "remembered" {
					run()
				}
				var ready, modern int
				for b.Loop() {
					if phase == "first" {
						os.RemoveAll(state)
					}
					r, m := run()
					ready, modern = ready+btoi(r), modern+btoi(m)
				}
				b.ReportMetric(float64(ready)/float64(b.N), "ready/op")
				b.ReportMetric(float64(modern)/float64(b.N), "modern/op")
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
