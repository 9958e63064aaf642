package runtime

import (
	"fmt"
	"testing"

	"mcpdeck/config"
)

// BenchmarkPublishServers is one publication's server part for 50 stdio
// servers that inherit mcpdeck's whole environment (as an ad-hoc --stdio
// server does): what every state change costs the session's goroutine.
func BenchmarkPublishServers(b *testing.B) {
	cfg := &config.Config{}
	for i := range 50 {
		cfg.Servers = append(cfg.Servers, config.Server{
			Name: fmt.Sprintf("s%d", i), Transport: config.TransportStdio, Enabled: true,
			Command: "node", Args: []string{"server.js", "--token", "sk-live-0123456789abcdef"},
			Env:        map[string]string{"API_KEY": "sk-live-0123456789abcdef", "MODE": "fast"},
			EnvInherit: config.EnvInherit{All: true},
		})
	}
	m := newMachine(cfg)
	for b.Loop() {
		for _, s := range m.servers {
			_ = s.snapshot()
		}
	}
}
