package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrToolSwitchedOff: the tool is switched off in mcpdeck (ToolPolicy);
// calls to it are refused until it is switched on again.
var ErrToolSwitchedOff = errors.New("tool is switched off")

// policyRefresh is how often a controller whose decisions live in a file
// looks whether another mcpdeck process changed them.
const policyRefresh = time.Second

// SetToolsEnabled switches tools of a server off (on false) or on again,
// by their names as the server lists them (or their normalized names). The
// decision is kept per server identity (ToolPolicy) and is in the
// publication this returns after: a switched-off tool is marked Disabled,
// its calls are refused, and the gateway stops offering it. The server must
// be ready (its tools listed). When the decision cannot be saved it still
// holds for this run, and the error says so.
func (c *Controller) SetToolsEnabled(ctx context.Context, server string, tools []string, on bool) error {
	id, found, err := c.listedNamed(server, tools)
	if err != nil {
		return err
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.ServerTool
	}
	action := ToolActionOff
	if on {
		action = ToolActionOn
	}
	saveErr := c.opts.Tools.setDisabled(id, server, names, !on)
	return c.decided(ctx, server, action, names, saveErr)
}

// AcceptTools approves the current definitions of a server's changed tools
// (Tool.Changed): they are pinned as they are now, and the gateway offers
// them again. tools names them as the server lists them (or their
// normalized names); none accepts every changed tool of the server. It
// returns the tools it accepted (a named tool that is not changed is left
// as it is); the server must be ready.
func (c *Controller) AcceptTools(ctx context.Context, server string, tools []string) ([]string, error) {
	id, found, err := c.listedNamed(server, tools)
	if err != nil {
		return nil, err
	}
	var accept []Tool
	var names []string
	for _, t := range found {
		if t.Changed != nil || t.PinnedHash == "" {
			accept = append(accept, t)
			names = append(names, t.ServerTool)
		}
	}
	if len(accept) == 0 {
		return nil, nil
	}
	saveErr := c.opts.Tools.pin(id, server, accept)
	return names, c.decided(ctx, server, ToolActionAccepted, names, saveErr)
}

// decided announces a decision and publishes it; saveErr, when the file
// could not be written, is returned with it.
func (c *Controller) decided(ctx context.Context, server, action string, names []string, saveErr error) error {
	ev := ToolDecision{EventHeader: EventHeader{Time: time.Now(), Server: server}, Action: action, Tools: names}
	if saveErr != nil {
		ev.Err = saveErr.Error()
	}
	c.bus.publish(ev)
	if _, err := c.do(ctx, command{kind: cmdRepublish}); err != nil {
		return errors.Join(saveErr, err)
	}
	if saveErr != nil {
		return fmt.Errorf("%s %s of %q for this run only: %w", action, strings.Join(names, ", "), server, saveErr)
	}
	return nil
}

// listedNamed finds the named tools of a published server (all of them when
// none is named), with the server's identity. An unknown name is an error
// naming the tools the server lists.
func (c *Controller) listedNamed(server string, tools []string) (string, []Tool, error) {
	_, v, err := c.resolve(server)
	if err != nil {
		return "", nil, err
	}
	id := c.pub.Load().identities[server]
	if len(tools) == 0 {
		return id, v.Tools, nil
	}
	var found []Tool
	for _, name := range tools {
		t, ok := LookupTool(v.Tools, name)
		if !ok {
			return "", nil, fmt.Errorf("%w %q on server %q (it lists %s)", ErrUnknownTool, name, server, listedNames(v.Tools))
		}
		found = append(found, *t)
	}
	return id, found, nil
}

// listedNames lists tools' names for a message, the first few of many.
func listedNames(tools []Tool) string {
	if len(tools) == 0 {
		return "no tools"
	}
	var names []string
	for i, t := range tools {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(tools)-i))
			break
		}
		names = append(names, t.ServerTool)
	}
	return strings.Join(names, ", ")
}

// switchedOff is the error of a call to a tool switched off.
func switchedOff(server string, t *Tool) error {
	return callError(server, "tools/call", fmt.Errorf("%q: %w in mcpdeck; switch it on with: mcpdeck tools enable %s %s (or space on it in the Tools tab)",
		t.ServerTool, ErrToolSwitchedOff, server, t.ServerTool))
}

// watchToolPolicy republishes when another mcpdeck process changed the
// tool decisions file, until the loop stops taking input. It runs on the
// loop's wait group.
func (c *Controller) watchToolPolicy() {
	tick := time.NewTicker(policyRefresh)
	defer tick.Stop()
	for {
		select {
		case <-c.loopExit:
			return
		case <-tick.C:
			if changed, _ := c.opts.Tools.Refresh(); changed {
				_, _ = c.do(context.Background(), command{kind: cmdRepublish})
			}
		}
	}
}
