// Package cli is mcpdeck's command tree (cobra). The root command opens the
// TUI; the headless commands print tables, JSON and progress lines. Human
// output goes to stdout, diagnostics to stderr, and exit codes follow the
// contract in DESIGN.md (see the Exit* constants).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mcpdeck/ui/present"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes, the user-facing contract of every headless command.
const (
	ExitOK         = 0 // success
	ExitToolError  = 1 // the tool returned isError, or a check failed
	ExitUsage      = 2 // usage or configuration error
	ExitConnection = 3 // connection or protocol failure
	ExitTimeout    = 4 // timeout or cancellation
)

// exitError carries an exit code out of a command's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode attaches an exit code to err. A nil err stays nil.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// silentExit ends a command with a code after the command itself has
// already reported what happened (a failed check, an isError result).
type silentExit int

func (s silentExit) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// shutdownSignals end a command with the same teardown as ctrl+c: every
// server is stopped before mcpdeck exits. SIGQUIT is among them: Go's
// default (a goroutine dump and exit status 2, the usage code) would skip
// the teardown.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Main runs the command line with args (without the program name) and
// returns the process exit code.
func Main(args []string) int {
	// With SIGPIPE caught, a write to a closed stdout (watch | head -5)
	// fails with EPIPE instead of killing mcpdeck with status 141 before
	// it stopped its servers; commands treat that as the reader being done.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

// brokenPipe reports whether err comes from writing to a stdout whose
// reader went away: the reader has what it wanted, so it is a normal end.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runRoot(newRootCmdFor(args), args, stdin, stdout, stderr)
}

func runRoot(root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// The invocation flushes the spans the command's telemetry holds once
	// it returns, whichever way it ends.
	inv := &invocation{root: root}
	cmd, err := root.ExecuteContextC(withInvocation(context.Background(), inv))
	inv.flush()
	if err == nil || brokenPipe(err) {
		return ExitOK
	}
	var s silentExit
	if errors.As(err, &s) {
		return int(s)
	}
	fmt.Fprintf(stderr, "mcpdeck: %s\n", present.ErrorText(err, present.CLI))
	writeJSONError(cmd, args, stdout, err)
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	// cobra's own errors (unknown command or flag, wrong arg count) are usage errors.
	return ExitUsage
}

// subcommands are the root's commands by name, each built by its
// constructor only when a run needs it (newRootCmdFor). The names are
// the commands' own (TestSubcommandTable checks them against each Use).
var subcommands = []struct {
	name  string
	build func() *cobra.Command
}{
	{"version", newVersionCmd},
	{"config", newConfigCmd},
	{"demo-server", newDemoServerCmd},
	{"servers", newServersCmd},
	{"tools", newToolsCmd},
	{"call", newCallCmd},
	{"resources", newResourcesCmd},
	{"read", newReadCmd},
	{"prompts", newPromptsCmd},
	{"prompt", newPromptCmd},
	{"complete", newCompleteCmd},
	{"watch", newWatchCmd},
	{"check", newCheckCmd},
	{"auth", newAuthCmd},
	{"monitor", newMonitorCmd},
	{"replay", newReplayCmd},
	{"diff", newDiffCmd},
	{"bench", newBenchCmd},
	{"gateway", newGatewayCmd},
	{"add", newAddCmd},
	{"add-json", newAddJSONCmd},
	{"remove", newRemoveCmd},
	{"edit", newEditCmd},
	{"enable", func() *cobra.Command { return newEnableCmd(true) }},
	{"disable", func() *cobra.Command { return newEnableCmd(false) }},
	{"import", newImportCmd},
	{"export", newExportCmd},
	{"registry", newRegistryCmd},
	{"fleet", newFleetCmd},
	{"assets", newAssetsCmd},
	{"test", newTestCmd},
	{"app", newAppCmd},
}

// newRootCmd is the whole command tree.
func newRootCmd() *cobra.Command {
	root := newRootOnly()
	for _, sc := range subcommands {
		root.AddCommand(sc.build())
	}
	return root
}

// newRootCmdFor is the command tree a run with args needs. Building every
// command's flags took about a tenth of the page faults of a one-shot
// start, so a run that names a command (mcpdeck call ..., mcpdeck servers
// list) gets the root and that command's subtree only: nothing else can
// show in what it prints, since its help, its flag errors and its
// completions are its own and the root's persistent flags. Every other
// run (the TUI, --help, help, completion, an unknown command and its
// suggestions) gets the whole tree. Which command args name is cobra's own
// Find on the root's flags, over stand-ins that carry only the names.
func newRootCmdFor(args []string) *cobra.Command {
	root := newRootOnly()
	standIns := make([]*cobra.Command, len(subcommands))
	for i, sc := range subcommands {
		standIns[i] = &cobra.Command{Use: sc.name}
	}
	root.AddCommand(standIns...)
	found, _, err := root.Find(args)
	root.RemoveCommand(standIns...)
	for i, sc := range subcommands {
		if err != nil || found == root || found == standIns[i] {
			root.AddCommand(sc.build())
		}
	}
	return root
}

// newRootOnly is the root command with its flags and no subcommands.
func newRootOnly() *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpdeck",
		Short: "An operations console for Model Context Protocol servers",
		Long: `mcpdeck monitors, toggles, calls and checks MCP servers.

With no command it opens the terminal UI on the discovered configuration;
MCP stays off until you enable it (the m key, or --enable).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		Version:       version(), // --version, as `mcpdeck version` prints it
	}
	root.SetVersionTemplate("mcpdeck {{.Version}}\n")
	var enable bool
	var logFile string
	var rf recordFlags
	var tel telemetryFlags
	var tf targetFlags
	root.Flags().BoolVar(&enable, "enable", false, "turn MCP on at start (otherwise press m)")
	root.Flags().StringVar(&logFile, "log", "", "append the session's events to `FILE` as JSON lines")
	root.Flags().String("serve", "", "also serve the session's servers to MCP clients over Streamable HTTP at `ADDR` (see mcpdeck gateway)")
	addRecordFlags(root, &rf)
	addTelemetryFlags(root.Flags(), &tel)
	addTargetFlags(root, &tf)
	root.RunE = func(cmd *cobra.Command, _ []string) error { return runTUI(cmd, enable, logFile, &rf, &tel, &tf) }
	root.PersistentFlags().StringSlice(configFlag, nil, "read only this mcp.json (repeatable; disables discovery)")
	root.PersistentFlags().Bool("trust-project", false, "approve this project's mcp.json files so their servers may start")
	addSessionFlags(root)
	addProtocolFlag(root)
	addOTLPFlag(root)
	return root
}
