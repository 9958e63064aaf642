package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestSecretName(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"GITHUB_TOKEN", "API_KEY", "apiKey", "X-Api-Key", "PGPASSWORD", "DB_PASS", "AWS_SECRET_ACCESS_KEY",
		"AWS_ACCESS_KEY_ID", "Authorization", "SESSION_ID", "private_key", "COOKIE", "GITLAB_PAT", "SENTRY_DSN", "client-credentials"} {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"UNIT", "PATH", "HOME", "MONKEY_MODE", "AUTHOR", "LOG_LEVEL", "REGION", "PORT", "BYPASS_CACHE", "OLDPWD_DIR", "KEYBOARD", "PWD", "TLS_CERT"} {
		if SecretName(n) {
			t.Errorf("SecretName(%q) = true, want false", n)
		}
	}
}

func TestSecretValue(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"sk-ant-api03-AbCdEfGhIjKl", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "xoxb-123456789012-abcdef",
		"AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
	} {
		if !SecretValue(v) {
			t.Errorf("SecretValue(%q) = false, want true", v)
		}
	}
	for _, v := range []string{
		"numbers", "true", "eu-west-1", "/usr/local/lib/node_modules/server/dist/index.js", "~/notes",
		"C:\\Program Files\\node\\node.exe", "https://api.example.com/v1/mcp", "production", "debug,info",
		"Add two numbers", "my-server-name-for-testing", "2025-11-25T12:00:00Z", "1234567890123456789",
	} {
		if SecretValue(v) {
			t.Errorf("SecretValue(%q) = true, want false", v)
		}
	}
}

// UNIT=numbers used to count as a secret (any value of 6+ characters), so
// "Add two numbers" came out as "Add two ••••••" and check reported a leak
// that was none. Only values that are credentials are scrubbed.
func TestScrubberNoFalseLeak(t *testing.T) {
	t.Parallel()
	s := Server{
		Transport: TransportStdio,
		Env: map[string]string{
			"UNIT": "numbers", "ROOT": "/home/ada/projects", "MODE": "production",
			"OPENAI_API_KEY": "plain-value", "TOKENISH_NAME_TOKEN": "abcdefg",
			"HIDDEN": "marked-secret", "RANDOM": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		},
		SecretNames: []string{"HIDDEN"},
		Headers:     map[string]string{"X-Team": "platform-core"},
	}
	sc := s.Scrubber()
	text := "Add two numbers in /home/ada/projects (production). keys: plain-value abcdefg marked-secret ghp_16C7e42F292c6912E7710c838347Ae178B4a platform-core"
	got := sc.String(text)
	want := "Add two numbers in /home/ada/projects (production). keys: ••••••×4 ••••••"
	want = strings.Replace(want, "••••••×4", strings.Repeat("•••••• ", 4)[:len(strings.Repeat("•••••• ", 4))-1], 1)
	if got != want {
		t.Fatalf("scrubbed:\n%q\nwant\n%q", got, want)
	}
	if string(sc.Bytes([]byte(`{"d":"Add two numbers"}`))) != `{"d":"Add two numbers"}` {
		t.Fatal("Bytes scrubbed an ordinary word")
	}
	r := s.Redacted()
	if r.Env["UNIT"] != "numbers" || r.Env["OPENAI_API_KEY"] != RedactedValue || r.Env["HIDDEN"] != RedactedValue || r.Env["RANDOM"] != RedactedValue {
		t.Errorf("Redacted env = %v: want the settings shown and the secrets hidden", r.Env)
	}
}

func TestScrubberInheritedSecrets(t *testing.T) {
	t.Setenv("MCPDECK_TEST_API_TOKEN", "inherited-credential-9")
	s := Server{Transport: TransportStdio, EnvInherit: EnvInherit{Names: []string{"MCPDECK_TEST_API_TOKEN"}}}
	if got := s.Scrubber().String("x inherited-credential-9 y"); got != "x "+RedactedValue+" y" {
		t.Fatalf("an inherited credential was not scrubbed: %q", got)
	}
}

// AddSecret reaches every scrubber, existing ones and nil ones included,
// and may be called while scrubbers run.
func TestAddSecretRegistry(t *testing.T) {
	existing := Server{Env: map[string]string{"API_TOKEN": "configured-token"}}.Scrubber()
	token := "oauth-access-token-issued-at-run-time"
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			AddSecret(fmt.Sprintf("%s-%d", token, i))
			_ = existing.String(token)
		})
	}
	wg.Wait()
	AddSecret(token)
	AddSecret("short") // ignored: too short to scrub safely
	for _, sc := range []*Scrubber{existing, nil, (Server{}).Scrubber()} {
		if got := sc.String("Bearer " + token + " short configured-token"); strings.Contains(got, token) || !strings.Contains(got, "short") {
			t.Errorf("scrubber %p: %q, want the run-time token scrubbed and short words kept", sc, got)
		}
		if sc.Empty() {
			t.Errorf("scrubber %p reports nothing to scrub", sc)
		}
	}
	if got := existing.String("configured-token " + token + "-3"); got != RedactedValue+" "+RedactedValue {
		t.Errorf("longest first across the registry and own secrets: %q", got)
	}
}

// TestEmptyBearerScrubsNothing: a header whose credential is empty
// ("Bearer " from "Bearer ${TOKEN}" with TOKEN set but empty) or the
// scheme word alone gives the scrubber no pattern: the word "Bearer" in
// a server's challenge stays. A real token is scrubbed, with and without
// its scheme. Loading such a header warns, at its position, as an unset
// variable is refused.
func TestEmptyBearerScrubsNothing(t *testing.T) {
	t.Setenv("MCPDECK_TEST_EMPTY_TOKEN", "")
	for _, v := range []string{"Bearer ", "Bearer", "  bearer  ", "Basic "} {
		s := Server{Transport: TransportHTTP, Headers: map[string]string{"Authorization": v}}
		challenge := `Bearer realm="mcp", error="invalid_token"; Basic realm="x"`
		if got := s.Scrubber().String(challenge); got != challenge {
			t.Errorf("header %q: the challenge reads %q", v, got)
		}
		if len(HeaderSecrets(v)) != 0 {
			t.Errorf("HeaderSecrets(%q) = %q, want none", v, HeaderSecrets(v))
		}
	}
	s := Server{Transport: TransportHTTP, Headers: map[string]string{"Authorization": "Bearer tok-3c9a71e2"}}
	if got := s.Scrubber().String("sent Bearer tok-3c9a71e2; echoed tok-3c9a71e2"); got != "sent "+RedactedValue+"; echoed "+RedactedValue {
		t.Errorf("a real token: %q", got)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	body := `{"mcpServers": {"api": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${MCPDECK_TEST_EMPTY_TOKEN}", "X-Api-Key": "${MCPDECK_TEST_EMPTY_TOKEN}", "X-Team": "core"}}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(LoadOptions{Files: []string{path}, ProjectDir: dir})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var fields []string
	for _, w := range cfg.Warnings {
		if strings.Contains(w.Message, "an empty variable?") {
			fields = append(fields, w.Field)
		}
	}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"headers.Authorization", "headers.X-Api-Key"}) {
		t.Errorf("warnings %v: want one for each empty credential", cfg.Warnings)
	}
}
