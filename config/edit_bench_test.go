package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigClaudeJSON is a ~/.claude.json grown by long use: many projects,
// each with history, about 2.5 MB.
func bigClaudeJSON() []byte {
	var b strings.Builder
	b.WriteString("{\n  \"numStartups\": 900,\n  \"mcpServers\": {\n    \"sentry\": {\n      \"type\": \"http\",\n      \"url\": \"https://mcp.sentry.dev/mcp\"\n    }\n  },\n  \"projects\": {\n")
	for i := range 1500 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"/home/me/src/project-%d\": {\n      \"allowedTools\": [],\n      \"history\": [\n", i)
		for j := range 8 {
			if j > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "        {\n          \"display\": \"refactor the module %d of project %d and run the tests again\",\n          \"pastedContents\": {}\n        }", j, i)
		}
		b.WriteString("\n      ],\n      \"mcpServers\": {},\n      \"hasTrustDialogAccepted\": true\n    }")
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

// Adding a server to a large ~/.claude.json: parse, patch, lay out.
func BenchmarkAddToLargeClaudeJSON(b *testing.B) {
	path := filepath.Join(b.TempDir(), ".claude.json")
	data := bigClaudeJSON()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	e := StdioEntry("npx", []string{"-y", "@modelcontextprotocol/server-everything"}, nil, "", "")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		d, err := OpenDocument(path, DocOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Add("everything", e); err != nil {
			b.Fatal(err)
		}
		if len(d.Bytes()) <= len(data) {
			b.Fatal("nothing added")
		}
	}
}

// The whole write: open, add, validate, lock, check, write atomically.
func BenchmarkSaveLargeClaudeJSON(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	path := filepath.Join(b.TempDir(), ".claude.json")
	data := bigClaudeJSON()
	e := StdioEntry("npx", []string{"-y", "@modelcontextprotocol/server-everything"}, nil, "", "")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		d, err := OpenDocument(path, DocOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Add("everything", e); err != nil {
			b.Fatal(err)
		}
		if _, err := d.Save(); err != nil {
			b.Fatal(err)
		}
	}
}
