package assets_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"mcpdeck/assets"
	"mcpdeck/assets/mixin"
)

var update = flag.Bool("update", false, "rewrite the rendered rules and dashboard from the mixin")

// TestShippedFilesAreTheMixin: the rules and dashboard in assets/ are the
// mixin rendered with its default _config, byte for byte, and what
// mcpdeck assets prints is them. go test ./assets -update rewrites them
// after a change to the mixin.
func TestShippedFilesAreTheMixin(t *testing.T) {
	rules, dashboard, err := mixin.Render("")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path     string
		want     []byte
		embedded []byte
	}{
		{filepath.Join("prometheus", "mcpdeck-alerts.yml"), rules, assets.PrometheusRules},
		{filepath.Join("grafana", "mcpdeck.json"), dashboard, assets.GrafanaDashboard},
	} {
		if *update {
			if err := os.WriteFile(f.path, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is not the mixin's rendering; run go test ./assets -update (and review the diff)", f.path)
		}
		if !bytes.Equal(f.embedded, got) {
			t.Errorf("the embedded copy of %s differs from the file", f.path)
		}
	}
}
