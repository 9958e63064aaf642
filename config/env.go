package config

import (
	"maps"
	"runtime"
	"slices"
	"strings"
)

// EnvInherit says which of mcpdeck's own environment variables a stdio
// server receives on top of the default set (see ProcessEnv). The zero
// value is the default set alone.
type EnvInherit struct {
	// All passes mcpdeck's whole environment ("envInherit": "all").
	All bool
	// Names are variables passed when set ("envInherit": ["AWS_PROFILE"]).
	Names []string
}

// IsZero reports whether e adds nothing to the default set.
func (e EnvInherit) IsZero() bool { return !e.All && len(e.Names) == 0 }

// Equal reports whether e and o pass the same variables.
func (e EnvInherit) Equal(o EnvInherit) bool {
	return e.All == o.All && slices.Equal(e.Names, o.Names)
}

// String renders e as it is written in mcp.json.
func (e EnvInherit) String() string {
	switch {
	case e.All:
		return "all"
	case len(e.Names) == 0:
		return "default"
	}
	return strings.Join(e.Names, ", ")
}

// defaultEnvUnix and defaultEnvWindows are the variables every stdio
// server receives, as the TypeScript SDK's getDefaultEnvironment hands
// them: enough to find programs, a home, a locale and a temporary
// directory, and nothing that is usually a credential (cloud keys,
// GITHUB_TOKEN and the like stay with mcpdeck unless passed on purpose).
var (
	defaultEnvUnix    = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR", "TZ"}
	defaultEnvWindows = []string{
		"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
	}
)

// ProcessEnv returns the environment ("K=V") to start s with, given
// mcpdeck's own (os.Environ()): the default set (on Unix HOME, LOGNAME,
// PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR and TZ; on Windows APPDATA,
// HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH, PATHEXT, PROCESSOR_ARCHITECTURE,
// SYSTEMDRIVE, SYSTEMROOT, TEMP, USERNAME, USERPROFILE and PROGRAMFILES),
// plus what s.EnvInherit adds, plus s.Env (envFile and env), which wins.
// Values that start with "()" (exported shell functions) are dropped from
// the default set, as the TypeScript SDK does. Inherited variables keep
// environ's order; s.Env follows, sorted by name.
func (s Server) ProcessEnv(environ []string) []string {
	return processEnv(runtime.GOOS == "windows", environ, s.EnvInherit, s.Env)
}

// ProcessEnvNames returns the names of the variables ProcessEnv passes,
// sorted, for showing what a server received without its values.
func (s Server) ProcessEnvNames(environ []string) []string {
	env := s.ProcessEnv(environ)
	names := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func processEnv(windows bool, environ []string, inherit EnvInherit, own map[string]string) []string {
	same := func(a, b string) bool { return a == b }
	defaults := defaultEnvUnix
	if windows {
		// Windows variable names are case-insensitive (Path, PATH).
		same, defaults = strings.EqualFold, defaultEnvWindows
	}
	listed := func(name string, list []string) bool {
		return slices.ContainsFunc(list, func(n string) bool { return same(n, name) })
	}
	ownKeys := slices.Sorted(maps.Keys(own))
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue // Windows' per-drive "=C:=C:\dir" entries, or junk
		}
		isDefault := listed(k, defaults) || (!windows && strings.HasPrefix(k, "LC_"))
		switch {
		case listed(k, inherit.Names), inherit.All:
		case isDefault && !strings.HasPrefix(v, "()"):
		default:
			continue
		}
		if listed(k, ownKeys) {
			continue // the server's own env wins
		}
		out = append(out, kv)
	}
	for _, k := range ownKeys {
		out = append(out, k+"="+own[k])
	}
	return out
}
