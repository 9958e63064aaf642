// Package mixin renders mcpdeck's monitoring mixin (the .libsonnet files
// here) into the Prometheus rules and Grafana dashboard shipped in assets/.
// Only tests import it: the shipped files are checked to be this package's
// output with the default _config (go test ./assets -update rewrites them),
// and the real-Prometheus test renders the rules with shorter "for"
// durations, as a user of the mixin would override them.
package mixin

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/google/go-jsonnet"
)

//go:embed *.libsonnet
var sources embed.FS

// Header starts the rendered rules file.
const Header = "# Generated from assets/mixin (jsonnet) with its default _config by `go test ./assets -update`; do not edit.\n" +
	"# Validate with: promtool check rules mcpdeck-alerts.yml && promtool test rules mcpdeck-alerts.test.yml\n"

// Render evaluates the mixin with config, a jsonnet object merged into
// _config (e.g. `{serverFailedFor: '5s'}`; "" or "{}" for the defaults),
// and returns the rules file (YAML) and the dashboard (JSON).
func Render(config string) (rules, dashboard []byte, err error) {
	if config == "" {
		config = "{}"
	}
	files := map[string]jsonnet.Contents{}
	entries, err := sources.ReadDir(".")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		b, err := sources.ReadFile(e.Name())
		if err != nil {
			return nil, nil, err
		}
		files[e.Name()] = jsonnet.MakeContents(string(b))
	}
	vm := jsonnet.MakeVM()
	vm.Importer(&jsonnet.MemoryImporter{Data: files})
	mixin := fmt.Sprintf("(import 'mixin.libsonnet') + { _config+:: %s }", config)
	y, err := vm.EvaluateAnonymousSnippet("rules.jsonnet",
		fmt.Sprintf("std.manifestYamlDoc((%s).prometheusAlerts, indent_array_in_object=true, quote_keys=false)", mixin))
	if err != nil {
		return nil, nil, fmt.Errorf("rendering the rules: %w", err)
	}
	var text string
	if err := unquote(y, &text); err != nil {
		return nil, nil, err
	}
	d, err := vm.EvaluateAnonymousSnippet("dashboard.jsonnet",
		fmt.Sprintf("std.manifestJsonEx((%s).grafanaDashboards['mcpdeck.json'], '  ')", mixin))
	if err != nil {
		return nil, nil, fmt.Errorf("rendering the dashboard: %w", err)
	}
	var dash string
	if err := unquote(d, &dash); err != nil {
		return nil, nil, err
	}
	return []byte(Header + text + "\n"), []byte(dash + "\n"), nil
}

// unquote reads the JSON string a jsonnet snippet evaluates to.
func unquote(s string, out *string) error { return json.Unmarshal([]byte(s), out) }
