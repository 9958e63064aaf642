package config

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func sampleServer() Server {
	return Server{
		Name: "gh", Transport: TransportStdio, Command: "gh-mcp",
		Args:    []string{"--token=ghp_secretvalue", "--verbose", "1"},
		Env:     map[string]string{"GITHUB_TOKEN": "ghp_secretvalue", "DEBUG": "1", "EMPTY": ""},
		Headers: map[string]string{"Authorization": "Bearer abcdefgh"},
		URL:     "https://user:pw@example.com/mcp?key=abcdefgh",
		Enabled: true, Source: "a.json", Scope: ScopeUser, Pos: Position{File: "a.json", Line: 3, Column: 5},
	}
}

func TestServerSecrets(t *testing.T) {
	t.Parallel()
	got := sampleServer().Secrets()
	// DEBUG=1 is no secret; the header and its credential, the token and
	// the URL password are.
	want := []string{"Bearer abcdefgh", "abcdefgh", "ghp_secretvalue", "pw"}
	if !slices.Equal(got, want) {
		t.Fatalf("Secrets() = %q, want %q", got, want)
	}
}

func TestServerRedacted(t *testing.T) {
	t.Parallel()
	s := sampleServer()
	r := s.Redacted()
	// The token is hidden; DEBUG=1 is a setting one looks for and stays.
	want := map[string]string{"GITHUB_TOKEN": RedactedValue, "DEBUG": "1", "EMPTY": ""}
	if !maps.Equal(r.Env, want) {
		t.Errorf("redacted env = %q, want %q", r.Env, want)
	}
	if r.Headers["Authorization"] != RedactedValue {
		t.Errorf("header = %q, want redacted", r.Headers["Authorization"])
	}
	joined := strings.Join(append([]string{r.Command, r.URL}, r.Args...), " ")
	for _, leak := range []string{"ghp_secretvalue", ":pw@"} {
		if strings.Contains(joined, leak) {
			t.Errorf("redacted output %q still contains %q", joined, leak)
		}
	}
	// Short non-secret values must not mangle ordinary arguments.
	if r.Args[2] != "1" || r.Args[1] != "--verbose" {
		t.Errorf("args = %q: short values must be left alone", r.Args)
	}
	if !strings.Contains(r.URL, "user:"+RedactedValue+"@") {
		t.Errorf("url = %q, want the password redacted", r.URL)
	}
	// The original is untouched.
	if s.Env["GITHUB_TOKEN"] != "ghp_secretvalue" || s.Args[0] != "--token=ghp_secretvalue" {
		t.Errorf("Redacted modified the original: %+v", s)
	}
}

func TestServerEqual(t *testing.T) {
	t.Parallel()
	a := sampleServer()
	b := sampleServer()
	b.Source, b.Pos, b.Scope = "other.json", Position{File: "other.json", Line: 9}, ScopeProject
	if !a.Equal(b) {
		t.Error("servers differing only in Source/Scope/Pos should be Equal")
	}
	changes := map[string]func(s *Server){
		"args":    func(s *Server) { s.Args = append(slices.Clone(s.Args), "x") },
		"env":     func(s *Server) { s.Env = map[string]string{"GITHUB_TOKEN": "other"} },
		"headers": func(s *Server) { s.Headers = nil },
		"enabled": func(s *Server) { s.Enabled = false },
		"ping":    func(s *Server) { s.PingInterval = 1 },
		"retry":   func(s *Server) { s.AutoReconnect.MaxAttempts = 9 },
		"input":   func(s *Server) { s.NeedsInput = "needs input" },
	}
	for name, change := range changes {
		c := sampleServer()
		change(&c)
		if a.Equal(c) {
			t.Errorf("a change of %s should make servers unequal", name)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Pos: Position{"f", 1, 2}, Server: "s", Field: "args", Message: "m"}, `f:1:2: server "s": field "args": m`},
		{Diagnostic{Pos: Position{"f", 1, 0}, Message: "m"}, `f:1: m`},
		{Diagnostic{Pos: Position{File: "f"}, Message: "m"}, `f: m`},
		{Diagnostic{Message: "m"}, `m`},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	errs := Errors{tests[0].d, tests[2].d}
	if got := errs.Error(); got != tests[0].want+"\n"+tests[2].want {
		t.Errorf("Errors.Error() = %q", got)
	}
}
