package cli

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkStartup times whole processes, as a person runs them: mcpdeck
// version, a one-shot mcpdeck call against the built-in demo server, and
// the official Go SDK's one-shot client (testdata/gosdkcall) calling the
// same server. Run them together, so they share the machine's state:
//
//	go test ./ui/cli -run '^$' -bench Startup -count 10 | tee startup.txt
//	benchstat -col /cmd startup.txt
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
	}
	for _, c := range cmds {
		b.Run("cmd="+c.name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(c.argv[0], c.argv[1:]...).CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", c.name, err, out)
				}
			}
		})
	}
}
