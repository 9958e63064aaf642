package runtime

import (
	"sort"

	"mcpdeck/config"
)

// Plan is what a reload does to the running set.
type Plan struct {
	Add     []string // configured now, not before: start
	Remove  []string // configured before, not now: close
	Restart []string // launch settings changed: close, then start
	Keep    []string // unchanged: the live connection stays
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Add)+len(p.Remove)+len(p.Restart) == 0 }

// Reconcile computes the reload plan from the wanted and the current
// configuration. It is pure: the controller applies the plan.
func Reconcile(want, have []config.Server) Plan {
	haveBy := make(map[string]config.Server, len(have))
	for _, s := range have {
		haveBy[s.Name] = s
	}
	wantBy := make(map[string]bool, len(want))
	var p Plan
	for _, w := range want {
		wantBy[w.Name] = true
		h, ok := haveBy[w.Name]
		switch {
		case !ok:
			p.Add = append(p.Add, w.Name)
		case !w.Equal(h):
			p.Restart = append(p.Restart, w.Name)
		default:
			p.Keep = append(p.Keep, w.Name)
		}
	}
	for _, h := range have {
		if !wantBy[h.Name] {
			p.Remove = append(p.Remove, h.Name)
		}
	}
	for _, l := range [][]string{p.Add, p.Remove, p.Restart, p.Keep} {
		sort.Strings(l)
	}
	return p
}
