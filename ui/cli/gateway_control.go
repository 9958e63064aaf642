package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
	"mcpdeck/ui/present"
)

// A headless gateway whose configuration asks for approvals opens a
// control socket; `mcpdeck gateway pending|approve|deny` answer the calls
// waiting on it from another terminal. Every decision, and every sampling
// request the gateway answers itself, is logged on the gateway's stderr.

// controlDir is where control sockets live: $XDG_RUNTIME_DIR/mcpdeck (a
// per-user directory the system clears at logout), else the state
// directory's run/.
func controlDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpdeck"), nil
	}
	state, err := config.DefaultStateDir()
	if err != nil {
		return "", fmt.Errorf("finding the directory of the control sockets: %w", err)
	}
	return filepath.Join(state, "run"), nil
}

// controlSocketPrefix starts every control socket's name:
// gateway-PID.sock.
const controlSocketPrefix = "gateway-"

// controlPath is the control socket of the gateway process pid.
func controlPath(pid int) (string, error) {
	dir, err := controlDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, controlSocketPrefix+strconv.Itoa(pid)+".sock"), nil
}

// startControl opens the gateway's control socket when its configuration
// asks for approvals, and logs approvals and decisions on stderr. stop
// closes the socket and ends the logging.
func startControl(ctx context.Context, g *gateway.Gateway, rt *runtime.Controller, cfg *config.Config, path string, stderr io.Writer) (stop func(), err error) {
	stopLog := logDecisions(g, rt, stderr)
	if !cfg.Gateway.HasApprovals() {
		return stopLog, nil
	}
	if path == "" {
		if path, err = controlPath(os.Getpid()); err != nil {
			stopLog()
			return nil, err
		}
	}
	l, err := gateway.ListenControl(path)
	if err != nil {
		stopLog()
		return nil, withCode(ExitUsage, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := g.ServeControl(ctx, l); err != nil {
			fmt.Fprintf(stderr, "mcpdeck gateway: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "mcpdeck gateway: calls that need approval wait for an operator on %s (mcpdeck gateway pending, approve ID, deny ID)\n", path)
	return func() {
		cancel()
		<-served
		stopLog()
	}, nil
}

// logDecisions writes each approval asked for, and each decision (the
// gateway's approvals, the sampling requests it answers itself), on
// stderr, one line each: the gateway's log.
func logDecisions(g *gateway.Gateway, rt *runtime.Controller, stderr io.Writer) (stop func()) {
	gev, stopG := g.Subscribe()
	rev, stopR := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1024})
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		for e := range gev {
			if a, ok := e.(gateway.ApprovalRequested); ok {
				fmt.Fprintf(stderr, "mcpdeck gateway: %s\n", present.Line(approvalWords(a.Approval)))
			}
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		for e := range rev {
			if d, ok := e.(runtime.OperatorDecision); ok {
				fmt.Fprintf(stderr, "mcpdeck gateway: %s\n", present.Line(present.DecisionText(d)))
			}
		}
	}()
	return func() {
		stopG()
		stopR()
		<-done
		<-done
	}
}

// approvalWords is one waiting call for a person: who calls what with
// which arguments, the rule, and how to answer.
func approvalWords(a gateway.Approval) string {
	return fmt.Sprintf("approval %s: %s calls %s %s (rule %s); answer within %s: mcpdeck gateway approve %s, or deny %s",
		a.ID, a.Who(), a.Tool, present.OneLine(argsText(a.Arguments), 200), a.Rule,
		time.Until(a.Deadline).Round(time.Second), a.ID, a.ID)
}

// argsText is a call's arguments on one line.
func argsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return present.CompactJSON(raw)
}

// controlFlags are the flags of gateway pending, approve and deny.
type controlFlags struct {
	socket string
	asJSON bool
	reason string
}

func newGatewayPendingCmd() *cobra.Command {
	var cf controlFlags
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List the gateway calls waiting for the operator's approval",
		Long: `pending asks every mcpdeck gateway of this user on this machine (their
control sockets, in $XDG_RUNTIME_DIR/mcpdeck or the state directory's run/)
for the calls waiting for approval: the ID to answer with, the client that
asks, the tool, its arguments, the rule that asks, and how long it waits.
--socket asks one gateway. --json prints {"pending": [{"id", "client",
"requestId", "server", "tool", "arguments", "rule", "asked", "deadline"}]},
the client as {"id", "name", "title", "version", "identity", "era",
"protocol", "transport", "remote", "session", "since", "lastSeen", ...}.`,
		Example: `  mcpdeck gateway pending
  mcpdeck gateway pending --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPending(cmd, &cf) },
	}
	cmd.Flags().StringVar(&cf.socket, "socket", "", "ask only the gateway whose control socket is `PATH`")
	cmd.Flags().BoolVar(&cf.asJSON, "json", false, "print stable JSON (shape in --help)")
	return cmd
}

func newGatewayDecideCmd(op string) *cobra.Command {
	var cf controlFlags
	verb := map[string]string{"approve": "Let", "deny": "Refuse"}[op]
	cmd := &cobra.Command{
		Use:   op + " ID",
		Short: verb + " a gateway call waiting for the operator's approval",
		Long: op + ` answers the call ID (from mcpdeck gateway pending, or the gateway's
stderr) on the control socket of the gateway that holds it: the ID's first
part is that gateway's process id. approve lets the call reach its server;
deny refuses it, with --reason in the error the client gets. The decision
is logged by the gateway and recorded with who decided.

Exit status: 0 decided; 2 no call waits under ID (decided, timed out or
withdrawn already); 3 the gateway cannot be reached.`,
		Example: "  mcpdeck gateway " + op + " 4242-1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDecide(cmd, &cf, op, args[0])
		},
	}
	cmd.Flags().StringVar(&cf.socket, "socket", "", "the control socket of the gateway holding the call (default: found from the ID)")
	cmd.Flags().StringVar(&cf.reason, "reason", "", "say why (the client's error carries it on deny)")
	return cmd
}

// runPending lists the waiting calls of every gateway (or the one of
// --socket).
func runPending(cmd *cobra.Command, cf *controlFlags) error {
	ctx, stop := signalContext(cmd)
	defer stop()
	paths := []string{cf.socket}
	if cf.socket == "" {
		var err error
		if paths, err = controlSockets(); err != nil {
			return withCode(ExitConnection, err)
		}
	}
	all := []gateway.Approval{}
	var failed []error
	for _, p := range paths {
		resp, err := gateway.Control(ctx, p, gateway.ControlRequest{Op: "pending"})
		switch {
		case err != nil && cf.socket == "" && isStale(err):
			continue // a gateway that ended without removing its socket
		case err != nil:
			failed = append(failed, fmt.Errorf("asking the gateway at %s: %w", p, err))
		case resp.Error != "":
			failed = append(failed, fmt.Errorf("the gateway at %s: %s", p, resp.Error))
		default:
			all = append(all, resp.Pending...)
		}
	}
	slices.SortFunc(all, func(a, b gateway.Approval) int { return a.Asked.Compare(b.Asked) })
	out := cmd.OutOrStdout()
	if cf.asJSON {
		if err := present.WriteJSON(out, map[string]any{"pending": all}); err != nil {
			return err
		}
	} else if len(all) == 0 && len(failed) == 0 {
		fmt.Fprintln(out, "no call waits for approval")
	} else {
		rows := make([][]string, 0, len(all))
		for _, a := range all {
			rows = append(rows, []string{a.ID, a.Who(), a.Tool, present.OneLine(argsText(a.Arguments), 60), present.Age(time.Until(a.Deadline)), a.Rule})
		}
		printTable(out, []string{"ID", "CLIENT", "TOOL", "ARGUMENTS", "LEFT", "RULE"}, rows)
	}
	if len(failed) > 0 {
		return withCode(ExitConnection, errors.Join(failed...))
	}
	return nil
}

// runDecide approves or denies one call.
func runDecide(cmd *cobra.Command, cf *controlFlags, op, id string) error {
	ctx, stop := signalContext(cmd)
	defer stop()
	path := cf.socket
	if path == "" {
		pid, _, ok := strings.Cut(id, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			return withCode(ExitUsage, fmt.Errorf("%q is not an approval ID (PID-N, as mcpdeck gateway pending lists them)", id))
		}
		if path, err = controlPath(n); err != nil {
			return withCode(ExitConnection, err)
		}
	}
	resp, err := gateway.Control(ctx, path, gateway.ControlRequest{Op: op, ID: id, Reason: cf.reason, By: "mcpdeck gateway " + op + operatorName()})
	switch {
	case err != nil && isStale(err):
		return withCode(ExitConnection, fmt.Errorf("no gateway answers on %s: the gateway that held %s has ended (list the waiting calls with mcpdeck gateway pending)", path, id))
	case err != nil:
		return withCode(ExitConnection, fmt.Errorf("asking the gateway at %s: %w", path, err))
	case resp.Unknown:
		return withCode(ExitUsage, fmt.Errorf("%s; it was decided, timed out or withdrawn already", resp.Error))
	case resp.Error != "":
		return withCode(ExitConnection, fmt.Errorf("the gateway at %s: %s", path, resp.Error))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", map[string]string{"approve": "approved", "deny": "denied"}[op], id)
	return nil
}

// operatorName is " (user NAME)" of the person running the command, for
// who decided; the gateway adds the pid and uid it sees.
func operatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return " (user " + u.Username + ")"
	}
	return ""
}

// controlSockets lists the control sockets in the control directory.
func controlSockets() ([]string, error) {
	dir, err := controlDir()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, controlSocketPrefix+"*.sock"))
	if err != nil {
		return nil, err
	}
	return paths, nil
}

// isStale reports a socket nobody answers on: no file, or nobody listening.
func isStale(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
