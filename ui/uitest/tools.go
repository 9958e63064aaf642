package uitest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"mcpdeck/runtime"
)

// SetToolsEnabled switches tools of a server off or on, as the runtime
// does: the snapshot marks them Disabled and the totals follow. It records
// "tools off SERVER T1,T2" (or on).
func (r *Runtime) SetToolsEnabled(_ context.Context, server string, tools []string, on bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("tools %s %s %s", onOff(on), server, strings.Join(tools, ","))
	if err := r.knownTools(server, tools); err != nil {
		return err
	}
	r.publishLocked(func(s *runtime.Snapshot) {
		r.changeTools(s, server, tools, func(t *runtime.Tool) { t.Disabled = !on })
	})
	return nil
}

// AcceptTools approves changed definitions (none named: every changed
// tool of the server), as the runtime does. It records "accept SERVER T1".
func (r *Runtime) AcceptTools(_ context.Context, server string, tools []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("accept %s %s", server, strings.Join(tools, ","))
	if err := r.knownTools(server, tools); err != nil {
		return nil, err
	}
	var done []string
	r.publishLocked(func(s *runtime.Snapshot) {
		r.changeTools(s, server, tools, func(t *runtime.Tool) {
			if t.Changed != nil && !slices.Contains(done, t.ServerTool) {
				done = append(done, t.ServerTool)
			}
			t.Changed, t.PinnedHash = nil, t.Hash
		})
	})
	return done, nil
}

// ChangeTool makes a server's tool differ from its pin, as a server that
// changed the tool's description since it was approved: the snapshot
// marks it Changed (with the pinned definition and what of the new
// description reads as instructions to the model).
func (r *Runtime) ChangeTool(server, tool, description string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishLocked(func(s *runtime.Snapshot) {
		r.changeTools(s, server, []string{tool}, func(t *runtime.Tool) {
			pinned := t.Definition()
			t.Description = description
			*t = runtime.Listed(*t)
			t.Changed = &runtime.ToolChange{Kind: runtime.ChangeDefinition, Fields: []string{"description"}, Pinned: &pinned,
				PinnedAt: Clock.Add(-72 * time.Hour), InstructionLike: runtime.InstructionLike(description)}
		})
	})
}

// knownTools refuses names the server does not list. The caller holds mu.
func (r *Runtime) knownTools(server string, tools []string) error {
	v, ok := r.snap.Server(server)
	if !ok {
		return fmt.Errorf("%w %q", runtime.ErrUnknownServer, server)
	}
	for _, name := range tools {
		if !slices.ContainsFunc(v.Tools, func(t runtime.Tool) bool { return t.ServerTool == name }) {
			return fmt.Errorf("%w %q on server %q", runtime.ErrUnknownTool, name, server)
		}
	}
	return nil
}

// changeTools applies change to the named tools of server (every tool when
// none is named), in the server's list and the session's, and the totals.
func (r *Runtime) changeTools(s *runtime.Snapshot, server string, tools []string, change func(*runtime.Tool)) {
	pick := func(t runtime.Tool) bool {
		return t.Server == server && (len(tools) == 0 || slices.Contains(tools, t.ServerTool))
	}
	for i := range s.Servers {
		if s.Servers[i].Name != server {
			continue
		}
		list := slices.Clone(s.Servers[i].Tools)
		for j := range list {
			if pick(list[j]) {
				change(&list[j])
			}
		}
		s.Servers[i].Tools = list
		s.Servers[i].ToolCost, s.Servers[i].ToolCostOn = runtime.ToolTotals(list)
	}
	all := slices.Clone(s.Tools)
	for j := range all {
		if pick(all[j]) {
			change(&all[j])
		}
	}
	s.Tools = all
}
