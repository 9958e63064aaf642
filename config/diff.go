package config

import (
	"maps"
	"slices"
	"strings"
)

// Changes says, in words, what differs between s and the definition it
// replaces (old), for a person approving the change: which settings
// changed, and for env and headers which names were added, removed or
// changed. It never contains a value: env and header values are secrets
// more often than not, and a name is enough to know what to look at.
// Where a definition came from (Source, Scope, Pos) is not a change.
func (s Server) Changes(old Server) []string {
	var out []string
	add := func(changed bool, what string) {
		if changed {
			out = append(out, what)
		}
	}
	now, was := written{s.Command, s.Args, s.URL, s.Env, s.Headers}, written{old.Command, old.Args, old.URL, old.Env, old.Headers}
	if s.written != nil && old.written != nil {
		// As the files write them: what changed in the file, whichever
		// of the two had its variables expanded.
		now, was = *s.written, *old.written
	}
	add(s.Transport != old.Transport, "transport "+string(old.Transport)+" → "+string(s.Transport))
	add(now.command != was.command || !slices.Equal(now.args, was.args), "command line")
	add(s.Cwd != old.Cwd, "working directory")
	add(now.url != was.url, "url")
	if d := keyChanges(was.env, now.env); d != "" {
		out = append(out, "env: "+d)
	}
	add(s.EnvFile != old.EnvFile, "envFile")
	if d := keyChanges(was.headers, now.headers); d != "" {
		out = append(out, "headers: "+d)
	}
	add(!equalOAuth(s.OAuth, old.OAuth), "oauth")
	switch {
	case s.Enabled && !old.Enabled:
		out = append(out, "switched on")
	case !s.Enabled && old.Enabled:
		out = append(out, "switched off")
	}
	add(s.StartupTimeout != old.StartupTimeout || s.CallTimeout != old.CallTimeout, "timeouts")
	add(s.PingInterval != old.PingInterval, "ping interval")
	add(s.Protocol != old.Protocol || s.DiscoverTimeout != old.DiscoverTimeout, "protocol")
	add(s.LogLevel != old.LogLevel, "log level")
	add(!slices.Equal(s.Roots, old.Roots), "roots")
	add(s.AutoReconnect != old.AutoReconnect, "autoReconnect")
	add(!s.EnvInherit.Equal(old.EnvInherit), "envInherit")
	add(!slices.Equal(s.SecretNames, old.SecretNames), "secrets")
	add(s.NeedsInput != old.NeedsInput, "inputs")
	switch {
	case s.Invalid != nil && old.Invalid == nil:
		out = append(out, "now invalid")
	case s.Invalid == nil && old.Invalid != nil:
		out = append(out, "now valid")
	}
	return out
}

// keyChanges names the keys added to, removed from and changed between
// two maps, "" when they are equal: "added A, B; removed C; changed D".
func keyChanges(old, now map[string]string) string {
	var added, removed, changed []string
	for _, k := range slices.Sorted(maps.Keys(now)) {
		v, ok := old[k]
		switch {
		case !ok:
			added = append(added, k)
		case v != now[k]:
			changed = append(changed, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, ok := now[k]; !ok {
			removed = append(removed, k)
		}
	}
	var parts []string
	for _, p := range []struct {
		verb string
		keys []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(p.keys) > 0 {
			parts = append(parts, p.verb+" "+strings.Join(p.keys, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
