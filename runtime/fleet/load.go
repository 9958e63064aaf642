package fleet

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"mcpdeck/runtime"
)

// stateName is a state label as the runtime's stable name: a monitor of
// an earlier version wrote "needs login", and --json prints identifiers.
// A label no state has is kept as it came.
func stateName(label string) string {
	var st runtime.State
	if st.UnmarshalText([]byte(label)) != nil {
		return label
	}
	return st.Name()
}

// key names a server on a host.
type key struct{ host, server string }

// answer is one query's result.
type answer struct {
	vec      vector
	matrix   matrix
	warnings []string
	err      error
}

// Load asks Prometheus for the fleet as of now: the queries run at once,
// each bounded by the options' Timeout. An error names the query that
// failed and what to do; a fleet with no mcpdeck series is an empty View,
// not an error.
func (f *Fleet) Load(ctx context.Context) (*View, error) {
	return f.LoadAt(ctx, time.Now())
}

// LoadAt is Load as of at.
func (f *Fleet) LoadAt(ctx context.Context, at time.Time) (*View, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	q := f.q
	instant := map[string]string{"inventory": q.inventory, "state": q.state, "up": q.up, "ping": q.ping,
		"missed": q.missed, "restarts": q.restarts, "attempts": q.attempts, "outstanding": q.outstanding, "lastError": q.lastError}
	answers := make(map[string]*answer, len(instant)+1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for name, query := range instant {
		wg.Go(func() {
			vec, warn, err := f.api.query(ctx, query, at)
			a := &answer{vec: vec, warnings: warn, err: err}
			mu.Lock()
			answers[name] = a
			mu.Unlock()
		})
	}
	wg.Go(func() {
		matrix, warn, err := f.api.queryRange(ctx, q.ping, at.Add(-f.opts.History), at, step(f.opts))
		a := &answer{matrix: matrix, warnings: warn, err: err}
		mu.Lock()
		answers["history"] = a
		mu.Unlock()
	})
	wg.Wait()
	// Report the first failure in a fixed order: the inventory first, it
	// is the one every other reading hangs on.
	for _, name := range []string{"inventory", "state", "up", "ping", "history", "missed", "restarts", "attempts", "outstanding", "lastError"} {
		if a := answers[name]; a.err != nil {
			query := instant[name]
			if name == "history" {
				query = q.ping
			}
			return nil, f.explain("querying the "+name, query, a.err)
		}
	}
	return f.assemble(at, answers), nil
}

// assemble builds the view from the answers.
func (f *Fleet) assemble(at time.Time, a map[string]*answer) *View {
	hl := f.opts.HostLabel
	v := &View{At: at, URL: f.opts.URL, HostLabel: f.opts.HostLabel}
	servers := map[key]*Server{}
	get := func(m labelSet) *Server {
		k := key{string(m[hl]), string(m[labelServer])}
		if k.server == "" {
			return nil
		}
		s := servers[k]
		if s == nil {
			s = &Server{Host: k.host, Name: k.server, State: StateUnknown}
			servers[k] = s
		}
		return s
	}
	for _, smp := range a["inventory"].vec {
		s := get(smp.Metric)
		if s == nil {
			continue
		}
		s.Transport, s.ProtocolVersion, s.Era = string(smp.Metric[labelTransport]), string(smp.Metric[labelVersion]), string(smp.Metric[labelEra])
	}
	for _, smp := range a["state"].vec {
		if s := get(smp.Metric); s != nil {
			s.State = stateName(string(smp.Metric[labelState]))
		}
	}
	// The numbers only for servers the inventory or the state named: a
	// stray series of another job adds no row.
	each := func(name string, fn func(*Server, float64)) {
		for _, smp := range a[name].vec {
			k := key{string(smp.Metric[hl]), string(smp.Metric[labelServer])}
			if s := servers[k]; s != nil && finite(float64(smp.Value)) {
				fn(s, float64(smp.Value))
			}
		}
	}
	each("ping", func(s *Server, v float64) { s.Ping = time.Duration(v * float64(time.Second)) })
	each("missed", func(s *Server, v float64) { s.MissedPerMinute = v * 60 })
	each("restarts", func(s *Server, v float64) { s.Restarts = uint64(max(v, 0)) })
	each("attempts", func(s *Server, v float64) { s.Attempts = uint64(max(v, 0)) })
	each("outstanding", func(s *Server, v float64) { s.Outstanding = int(max(v, 0)) })
	for _, smp := range a["lastError"].vec {
		k := key{string(smp.Metric[hl]), string(smp.Metric[labelServer])}
		s := servers[k]
		when := time.Unix(int64(smp.Value), 0)
		if s == nil || !finite(float64(smp.Value)) || (s.LastError != nil && !when.After(s.LastError.At)) {
			continue
		}
		s.LastError = &LastError{Kind: string(smp.Metric[labelErrKind]), Message: string(smp.Metric[labelErrMsg]), At: when}
	}
	st := step(f.opts)
	start := at.Add(-f.opts.History)
	n := int(f.opts.History/st) + 1
	for _, ss := range a["history"].matrix {
		s := servers[key{string(ss.Metric[hl]), string(ss.Metric[labelServer])}]
		if s == nil {
			continue
		}
		s.Pings = make([]float64, n)
		for i := range s.Pings {
			s.Pings[i] = math.NaN()
		}
		for _, p := range ss.Values {
			i := int(p.Timestamp.Sub(start).Round(st) / st)
			if i >= 0 && i < n && finite(float64(p.Value)) {
				s.Pings[i] = float64(p.Value)
			}
		}
	}

	hosts := map[string]*Host{}
	for _, s := range servers {
		h := hosts[s.Host]
		if h == nil {
			h = &Host{Name: s.Host}
			hosts[s.Host] = h
		}
		h.Servers = append(h.Servers, *s)
	}
	for _, smp := range a["up"].vec {
		if h := hosts[string(smp.Metric[hl])]; h != nil {
			up := smp.Value == 1
			h.Up = &up
		}
	}
	for _, h := range hosts {
		slices.SortFunc(h.Servers, func(x, y Server) int { return cmp.Compare(x.Name, y.Name) })
		v.Hosts = append(v.Hosts, *h)
	}
	slices.SortFunc(v.Hosts, func(x, y Host) int { return cmp.Compare(x.Name, y.Name) })
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(a)) {
		for _, w := range a[name].warnings {
			if !seen[w] {
				seen[w] = true
				v.Warnings = append(v.Warnings, w)
			}
		}
	}
	return v
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
