package runtime

import (
	"context"
	"fmt"
)

// Policy is what a parent session hands a child (a nested session, or a
// client attached through mcpdeck gateway).
type Policy int

const (
	// PolicyOmitted: the child stated no policy. It gets nothing and
	// discovers nothing: a child never starts servers on its own.
	PolicyOmitted Policy = iota
	// PolicyInherit: the child uses the parent's live connections, while
	// the parent is enabled.
	PolicyInherit
	// PolicyDisabled: the child explicitly runs without MCP.
	PolicyDisabled
)

func (p Policy) String() string {
	return [...]string{"omitted", "inherit", "disabled"}[p]
}

// Child is a child session's view of its parent. It owns no connection
// and starts no process: with PolicyInherit under an enabled parent it
// proxies over the parent's live connections; otherwise it has no tools.
// Because it reads the parent's publications, disabling the parent
// withdraws the child's proxies in the same publication that withdraws
// the parent's capabilities, before any transport closes.
type Child struct {
	parent *Controller
	policy Policy
}

// Child returns a child session under policy.
func (c *Controller) Child(policy Policy) *Child { return &Child{parent: c, policy: policy} }

// Policy returns the child's policy.
func (ch *Child) Policy() Policy { return ch.policy }

// Enabled reports whether the child has proxies now.
func (ch *Child) Enabled() bool {
	return ch.policy == PolicyInherit && ch.parent.pub.Load().snap.Enabled
}

// Tools returns the tools the child may call: the parent's published
// tools under PolicyInherit while the parent is enabled, else none.
func (ch *Child) Tools() []Tool {
	if !ch.Enabled() {
		return nil
	}
	return ch.parent.pub.Load().snap.Tools
}

// Call calls a tool through the parent's connection.
func (ch *Child) Call(ctx context.Context, req CallRequest) (*Result, error) {
	if !ch.Enabled() {
		err := fmt.Errorf("child session (policy %s): %w", ch.policy, ErrNotEnabled)
		return nil, callError(req.Server, "tools/call", err)
	}
	return ch.parent.Call(ctx, req)
}
