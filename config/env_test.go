package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var hostEnv = []string{
	"PATH=/usr/bin", "HOME=/home/ada", "USER=ada", "LANG=en_US.UTF-8", "LC_ALL=C", "TERM=xterm",
	"TMPDIR=/tmp", "TZ=UTC", "SHELL=/bin/bash", "LOGNAME=ada",
	"GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=aws-secret", "AWS_PROFILE=dev", "EDITOR=vi",
	"BASH_FUNC_x%%=() { evil; }", "LC_EVIL=() { evil; }", "=C:=C:\\odd", "junk",
}

func TestProcessEnvDefaultSet(t *testing.T) {
	t.Parallel()
	got := processEnv(false, hostEnv, EnvInherit{}, map[string]string{"API_URL": "http://x", "TERM": "dumb"})
	want := []string{
		"PATH=/usr/bin", "HOME=/home/ada", "USER=ada", "LANG=en_US.UTF-8", "LC_ALL=C",
		"TMPDIR=/tmp", "TZ=UTC", "SHELL=/bin/bash", "LOGNAME=ada",
		"API_URL=http://x", "TERM=dumb",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("processEnv =\n%q\nwant\n%q", got, want)
	}
}

func TestProcessEnvInherit(t *testing.T) {
	t.Parallel()
	got := processEnv(false, hostEnv, EnvInherit{Names: []string{"AWS_PROFILE", "NOT_SET"}}, nil)
	if !slices.Contains(got, "AWS_PROFILE=dev") || slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "GITHUB_TOKEN") }) {
		t.Fatalf("listed inherit: %q, want AWS_PROFILE and no GITHUB_TOKEN", got)
	}
	all := processEnv(false, hostEnv, EnvInherit{All: true}, map[string]string{"EDITOR": "ed"})
	for _, want := range []string{"GITHUB_TOKEN=ghp_secret", "BASH_FUNC_x%%=() { evil; }", "EDITOR=ed"} {
		if !slices.Contains(all, want) {
			t.Errorf("inherit all: %q lacks %q", all, want)
		}
	}
	if slices.Contains(all, "EDITOR=vi") {
		t.Errorf("inherit all: the server's own env did not win: %q", all)
	}
}

func TestProcessEnvWindows(t *testing.T) {
	t.Parallel()
	env := []string{"Path=C:\\Windows", "SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\ada", "LC_ALL=C", "GITHUB_TOKEN=x", "=C:=C:\\"}
	got := processEnv(true, env, EnvInherit{Names: []string{"github_token"}}, map[string]string{"PATH": "C:\\bin"})
	want := []string{"SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\ada", "GITHUB_TOKEN=x", "PATH=C:\\bin"}
	if !slices.Equal(got, want) {
		t.Fatalf("windows processEnv =\n%q\nwant\n%q", got, want)
	}
}

func TestProcessEnvNames(t *testing.T) {
	t.Parallel()
	s := Server{Env: map[string]string{"API_KEY": "k"}}
	names := s.ProcessEnvNames([]string{"PATH=/bin", "SECRET=x", "HOME=/h"})
	if !slices.Equal(names, []string{"API_KEY", "HOME", "PATH"}) {
		t.Fatalf("ProcessEnvNames = %q", names)
	}
}

func TestParseEnvInherit(t *testing.T) {
	t.Parallel()
	src := `{
  "envInherit": ["AWS_PROFILE"],
  "mcpServers": {
    "file":   {"command": "a"},
    "all":    {"command": "b", "envInherit": "all"},
    "listed": {"command": "c", "envInherit": ["B", "A", "B"]},
    "plain":  {"command": "d", "envInherit": "default"}
  }
}`
	servers, warns, err := Parse("f.json", []byte(src), ScopeExplicit, LoadOptions{ProjectDir: "/p", LookupEnv: fakeEnv(nil)})
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	byName := map[string]EnvInherit{}
	for _, s := range servers {
		byName[s.Name] = s.EnvInherit
	}
	if !slices.Equal(byName["file"].Names, []string{"AWS_PROFILE"}) || !byName["all"].All ||
		!slices.Equal(byName["listed"].Names, []string{"A", "B"}) || !byName["plain"].IsZero() {
		t.Fatalf("envInherit = %+v", byName)
	}
	// The caller's default applies when the file says nothing.
	servers, _, _ = Parse("f.json", []byte(`{"mcpServers": {"x": {"command": "x"}}}`), ScopeExplicit,
		LoadOptions{ProjectDir: "/p", LookupEnv: fakeEnv(nil), EnvInherit: EnvInherit{All: true}})
	if !servers[0].EnvInherit.All {
		t.Fatalf("LoadOptions.EnvInherit not applied: %+v", servers[0].EnvInherit)
	}
	for _, bad := range []string{`"some"`, `3`, `["A=B"]`, `[1]`} {
		_, _, err := Parse("f.json", []byte(`{"mcpServers": {"x": {"command": "x", "envInherit": `+bad+`}}}`), ScopeExplicit, LoadOptions{ProjectDir: "/p", LookupEnv: fakeEnv(nil)})
		var errs Errors
		if !errors.As(err, &errs) || errs[0].Field == "" {
			t.Errorf("envInherit %s: error %v, want a field error", bad, err)
		}
	}
}
