package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser. It must never panic or
// hang, and its three outcomes must be consistent: servers and no error,
// or Errors (each with a position) and no servers. Run it with
//
//	go test ./config -run '^$' -fuzz FuzzParse -fuzztime 20s
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``, `{`, `[]`, `null`, `{"mcpServers": null}`,
		`{"servers": {"a": {"url": "http://${A:-${B:-x}}/", "headers": {"h": "${input:i}"}}}, "inputs": [{"id": "i"}]}`,
		`{"mcpServers": {"a": {"command": "~", "envFile": "/dev/null", "autoReconnect": {"maxAttempts": 1e99}}}}`,
		"{/* c */ \"mcpServers\": {\"a\": {\"command\": \"x\",},}, // t\n}",
	} {
		f.Add([]byte(s))
	}
	opts := LoadOptions{ProjectDir: "/proj", LookupEnv: fakeEnv(map[string]string{"HOME": "/home/f", "A": "a"})}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _, err := Parse("fuzz.json", data, ScopeProject, opts)
		var errs Errors
		switch {
		case err == nil:
			for _, s := range servers {
				if !serverName().MatchString(s.Name) || s.Transport == "" || s.Pos.Line == 0 {
					t.Fatalf("accepted an invalid server: %+v", s)
				}
				if s.Transport == TransportStdio && s.Command == "" {
					t.Fatalf("accepted a stdio server without a command: %+v", s)
				}
				if s.Transport != TransportStdio && s.URL == "" {
					t.Fatalf("accepted a remote server without a url: %+v", s)
				}
			}
		case errors.As(err, &errs):
			if len(errs) == 0 || len(servers) != 0 {
				t.Fatalf("errors %v with servers %v", errs, servers)
			}
			for _, d := range errs {
				if d.Pos.File == "" || d.Message == "" {
					t.Fatalf("diagnostic without a place or message: %+v", d)
				}
			}
		default:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	})
}
