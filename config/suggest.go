package config

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// unknownField is the warning for a field mcpdeck does not read: the
// nearest known name when the field looks like a typo of it ("comand"),
// so the fix costs one glance, else the fallback (what the known names
// are, or that another client may own the field).
func unknownField(name string, known []string, fallback string) string {
	if near := nearest(name, known); near != "" {
		return "unknown field is ignored (did you mean " + near + "?)"
	}
	return "unknown field is ignored (" + fallback + ")"
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
	}
	return best
}
