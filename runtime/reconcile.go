package runtime

import (
	"slices"
	"sort"

	"mcpdeck/config"
)

// Plan is what a reload does to the running set. A changed server is in
// exactly one of Restart, Stop, Start and Update, by its "enabled" setting
// before and after, so a server switched off in the file is told as
// stopped, not "restarted".
type Plan struct {
	Add     []string // configured now, not before: start
	Remove  []string // configured before, not now: close
	Restart []string // enabled before and now, launch settings changed: close, then start
	Keep    []string // unchanged: the live connection stays
	Stop    []string `json:",omitempty"` // now disabled in the configuration: close
	Start   []string `json:",omitempty"` // now enabled in the configuration: start
	Update  []string `json:",omitempty"` // disabled before and now, settings changed: nothing runs
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Add)+len(p.Remove)+len(p.Changed()) == 0 }

// Changed returns every server whose definition changed (Restart, Stop,
// Start and Update): each is closed and takes its new definition.
func (p Plan) Changed() []string {
	return slices.Concat(p.Restart, p.Stop, p.Start, p.Update)
}

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
			switch {
			case w.Enabled && h.Enabled:
				p.Restart = append(p.Restart, w.Name)
			case h.Enabled:
				p.Stop = append(p.Stop, w.Name)
			case w.Enabled:
				p.Start = append(p.Start, w.Name)
			default:
				p.Update = append(p.Update, w.Name)
			}
		default:
			p.Keep = append(p.Keep, w.Name)
		}
	}
	for _, h := range have {
		if !wantBy[h.Name] {
			p.Remove = append(p.Remove, h.Name)
		}
	}
	for _, l := range [][]string{p.Add, p.Remove, p.Restart, p.Keep, p.Stop, p.Start, p.Update} {
		sort.Strings(l)
	}
	return p
}
