package present

import "mcpdeck/runtime"

// EraDecision words how a server's protocol era was decided, the same in
// the overview and in servers' table: probed (and what the probe got),
// remembered, pinned or switched. "" for a server not negotiated yet.
func EraDecision(d runtime.EraDecision) string {
	switch d {
	case runtime.EraDiscoverAnswered:
		return "probed: discover answered"
	case runtime.EraLegacyError:
		return "probed: 2026-07-28 refused, session protocol"
	case runtime.EraTimedOut:
		return "probed: timed out"
	case runtime.EraRemembered:
		return "remembered"
	case runtime.EraPinned:
		return "pinned"
	case runtime.EraSwitched:
		return "switched: late answer"
	}
	return ""
}
