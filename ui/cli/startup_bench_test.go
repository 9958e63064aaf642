package cli

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkStartup times whole processes, as a person runs them: mcpdeck
// version, a one-shot mcpdeck call against the built-in demo server (and
// the same under --no-validate), and the official Go SDK's one-shot client
// (testdata/gosdkcall) calling the same server. Run them together, so they share the machine's state:
//
//	go test ./ui/cli -run '^$' -bench Startup -count 10
func BenchmarkStartup(b *testing.B) {
	bin := mcpdeckBin(b)
	gosdk := filepath.Join(filepath.Dir(bin), "gosdkcall")
	if out, err := exec.Command("go", "build", "-o", gosdk, "./testdata/gosdkcall").CombinedOutput(); err != nil {
		b.Fatalf("building gosdkcall: %v\n%s", err, out)
	}
	server := bin + " demo-server"
	cmds := []struct {
		name string
		argv []string
	}{
		{"version", []string{bin, "version"}},
		{"mcpdeck-call", []string{bin, "call", "--stdio", server, "echo", `{"text":"hi"}`}},
		{"gosdk-call", []string{gosdk, bin, "demo-server", "--", "echo", `{"text":"hi"}`}},
		{"mcpdeck-call-novalidate", []string{bin, "call", "--no-validate", "--stdio", server, "echo", `{"text":"hi"}`}},
	}
	// Interleaved, one of each per iteration, so a load that comes and
	// goes weighs on all three alike.
	took := make([]time.Duration, len(cmds))
	for b.Loop() {
		for i, c := range cmds {
			start := time.Now()
			if out, err := exec.Command(c.argv[0], c.argv[1:]...).CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			took[i] += time.Since(start)
		}
	}
	for i, c := range cmds {
		b.ReportMetric(float64(took[i].Microseconds())/1000/float64(b.N), c.name+"-ms")
	}
	b.ReportMetric(float64(took[1])/float64(took[2]), "call-ratio")
	b.ReportMetric(float64(took[3])/float64(took[2]), "novalidate-ratio")
}
