package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// newToolSwitchCmd is `tools enable` (on) or `tools disable`.
func newToolSwitchCmd(on bool) *cobra.Command {
	var tf targetFlags
	verb, what := "disable", "Switch tools of a server off: calls are refused and the gateway does not offer them"
	if on {
		verb, what = "enable", "Switch tools of a server on again"
	}
	cmd := &cobra.Command{
		Use:   verb + " SERVER TOOL...",
		Short: what,
		Long: what + `.

The server is started to list its tools (the names are checked against
them), the decision is saved and the server stopped. The decision is kept
per server in $XDG_STATE_HOME/mcpdeck/tools.json, by its name and identity
(its command line and the names of its env variables, or its URL): it
survives restarts and reloads, and a running mcpdeck (the TUI, a
gateway) picks it up within a second. A switched-off tool is listed by
mcpdeck tools as off and in --json with "disabled": true; mcpdeck call and
the TUI's form refuse it, and mcpdeck gateway leaves it out of what its
clients list (they are sent notifications/tools/list_changed).

With --stdio or --url, the arguments are the tools alone.

Exit status: 0 when saved; 2 for an unknown server or tool, or when the
decision could not be saved (the state directory is not writable); 3 when
the server cannot start.`,
		Example: "  mcpdeck tools " + verb + " github create_gist delete_repository",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, tools, err := switchArgs(&tf, args)
			if err != nil {
				return err
			}
			return runToolDecision(cmd, &tf, server, tools, func(ctx context.Context, rt *runtime.Controller) ([]string, error) {
				return tools, rt.SetToolsEnabled(ctx, server, tools, on)
			})
		},
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Tools }),
	}
	addTargetFlags(cmd, &tf)
	return cmd
}

// newToolAcceptCmd is `tools accept`.
func newToolAcceptCmd() *cobra.Command {
	var tf targetFlags
	var all bool
	cmd := &cobra.Command{
		Use:   "accept SERVER (TOOL...|--all)",
		Short: "Approve the changed definitions of a server's tools",
		Long: `accept approves the definitions a server's tools have now, where they differ
from the ones pinned (mcpdeck tools shows them as changed, and
mcpdeck tools SERVER TOOL shows what changed, word by word): they are
pinned as they are, and mcpdeck gateway offers them again. --all accepts
every changed tool of the server. Read what changed first: a tool whose
description now tells the model what to do (flagged "reads as
instructions") is how a rug pull looks.

Exit status: 0 when saved (also when nothing was changed); 2 for an
unknown server or tool, or when the decision could not be saved; 3 when
the server cannot start.`,
		Example: "  mcpdeck tools accept github create_gist\n  mcpdeck tools accept github --all",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, tools, err := switchArgs(&tf, args)
			if all && len(tools) > 0 {
				return withCode(ExitUsage, errors.New("name tools or give --all, not both"))
			}
			if errors.Is(err, errNoTools) && all {
				err = nil
			}
			if err != nil {
				return err
			}
			return runToolDecision(cmd, &tf, server, tools, func(ctx context.Context, rt *runtime.Controller) ([]string, error) {
				return rt.AcceptTools(ctx, server, tools)
			})
		},
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Tools }),
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&all, "all", false, "accept every changed tool of the server")
	return cmd
}

// errNoTools: a decision names no tool.
var errNoTools = errors.New("name at least one tool")

// switchArgs reads SERVER TOOL... (TOOL... with an ad-hoc server).
func switchArgs(tf *targetFlags, args []string) (string, []string, error) {
	server := adHocName
	if tf.url == "" && tf.stdio == "" {
		server, args = args[0], args[1:]
	}
	if len(args) == 0 {
		return server, nil, withCode(ExitUsage, fmt.Errorf("%w of server %q (mcpdeck tools %s lists them)", errNoTools, server, server))
	}
	return server, args, nil
}

// runToolDecision starts the server, checks the named tools against its
// listing, applies decide and says what it did.
func runToolDecision(cmd *cobra.Command, tf *targetFlags, server string, tools []string, decide func(context.Context, *runtime.Controller) ([]string, error)) error {
	var names []string
	if server != adHocName {
		names = []string{server}
	}
	return withServer(cmd, tf, server, names, "tools", func(ctx context.Context, rt *runtime.Controller) error {
		for _, tool := range tools {
			if err := knownTool(rt.Snapshot(), server, tool); err != nil {
				return err
			}
		}
		done, err := decide(ctx, rt)
		if err != nil {
			if errors.Is(err, runtime.ErrToolPolicy) {
				return withCode(ExitUsage, err)
			}
			return requestFailure(ctx, "tools", err)
		}
		sayToolDecision(cmd, rt, server, tools, done)
		return nil
	})
}

// sayToolDecision says what a tools enable, disable or accept did.
func sayToolDecision(cmd *cobra.Command, rt *runtime.Controller, server string, tools, done []string) {
	w := cmd.OutOrStdout()
	v, _ := rt.Snapshot().Server(server)
	switch verb := cmd.Name(); {
	case verb == "accept" && len(done) == 0 && len(tools) == 0:
		fmt.Fprintf(w, "%s: nothing to accept: no tool changed since it was approved\n", server)
	case verb == "accept" && len(done) == 0:
		be := "are"
		if len(tools) == 1 {
			be = "is"
		}
		fmt.Fprintf(w, "%s: nothing to accept: %s %s as approved\n", server, present.Line(strings.Join(tools, ", ")), be)
	case verb == "accept":
		fmt.Fprintf(w, "%s: accepted %s: %s\n", server, present.Count(len(done), "definition", "definitions"), present.Line(strings.Join(done, ", ")))
	default:
		state := "off"
		if verb == "enable" {
			state = "on"
		}
		fmt.Fprintf(w, "%s: switched %s: %s. The tools on cost %s of context, of %s for all.\n", server, state,
			present.Line(strings.Join(done, ", ")), present.ToolCost(v.ToolCostOn), present.ToolCost(v.ToolCost))
	}
}
