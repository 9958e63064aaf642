package present

import (
	"fmt"
	"strings"

	"mcpdeck/runtime"
)

// PlanPart is one part of a reload plan as told: its word and its servers.
type PlanPart struct {
	Label string // "added", "removed", "restarted", "stopped", "started", "updated", "kept"
	Names []string
}

// PlanParts are a reload plan's non-empty parts, in the order both faces
// tell them. A server switched off in the file reads "stopped" and one
// switched on "started": neither was restarted.
func PlanParts(p runtime.Plan) []PlanPart {
	var out []PlanPart
	for _, part := range []PlanPart{
		{"added", p.Add}, {"removed", p.Remove}, {"restarted", p.Restart},
		{"stopped", p.Stop}, {"started", p.Start}, {"updated", p.Update}, {"kept", p.Keep},
	} {
		if len(part.Names) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// PlanSummary is the plan in one line: "1 added, 1 stopped, 2 kept", or
// "nothing changed".
func PlanSummary(p runtime.Plan) string {
	if p.Empty() {
		return "nothing changed"
	}
	var parts []string
	for _, part := range PlanParts(p) {
		parts = append(parts, fmt.Sprintf("%d %s", len(part.Names), part.Label))
	}
	return strings.Join(parts, ", ")
}
