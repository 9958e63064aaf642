package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// unknown warns of a field mcpdeck does not read, at off: the nearest
// known name when the field looks like a typo of it ("comand"), so the
// fix costs one glance (a Loud warning: the field meant is not applied),
// else the fallback (what the known names are, or that another client may
// own the field).
func (p *parser) unknown(off int, server, field, name string, known []string, fallback string) {
	if near := nearest(name, known); near != "" {
		p.warnf(off, server, field, "unknown field is ignored (did you mean %s?)", near)
		p.warns[len(p.warns)-1].Loud = true
		return
	}
	p.warnf(off, server, field, "unknown field is ignored (%s)", fallback)
}

// nearest returns the known name closest to name within a typo's reach
// (case aside, at most a third of its letters edited, two from four
// letters on), or "" when none is that close.
func nearest(name string, known []string) string {
	lower := strings.ToLower(name)
	allowed := max(len(name)/3, 1)
	if len(name) >= 4 {
		allowed = max(allowed, 2)
	}
	best, bestD := "", allowed+1
	for _, k := range known {
		if d := levenshtein.ComputeDistance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
		for _, long := range spelledOut[k] {
			if d := levenshtein.ComputeDistance(lower, long); d < bestD {
				best, bestD = k, d
			}
		}
	}
	return best
}

// spelledOut are the words people write, in full or in another tool's
// spelling, for a field with a short name: "enviroment" is a typo of
// "environment", which means env, though it is far from "env" itself.
var spelledOut = map[string][]string{
	"env":     {"environment", "environ"},
	"args":    {"arguments", "argv"},
	"command": {"cmd", "executable", "program"},
	"cwd":     {"workingdirectory", "working_directory", "workdir", "dir"},
	"envFile": {"environmentfile", "env_file", "dotenv"},
	"url":     {"serverurl", "endpoint"}, // Windsurf's spelling (mcpdeck import --from windsurf converts it)
}

// unknownNear lists the fields of a server that mcpdeck does not read
// but that look like a typo of one of want ("comand" of "command"), as
// "\"comand\" (did you mean command?)", for an error about a missing
// field: the field is there, misspelt. "" when none is.
func unknownNear(r *rawServer, want ...string) string {
	var out []string
	for name := range r.fields {
		if slices.Contains(serverFields, name) {
			continue
		}
		if near := nearest(name, want); near != "" {
			out = append(out, fmt.Sprintf("%q is no field mcpdeck reads: did you mean %s?", name, near))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
