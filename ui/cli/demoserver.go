package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime/demoserver"
)

// demoLogIntervalEnv sets the heartbeat interval when --log-interval is not
// given, so a configuration file can tune the demo server without args.
const demoLogIntervalEnv = "MCPDECK_DEMO_LOG_INTERVAL"

func newDemoServerCmd() *cobra.Command {
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "demo-server",
		Short: "Run the built-in demo MCP server on stdio",
		Long: `demo-server runs mcpdeck's built-in MCP server on stdin/stdout (one JSON-RPC
message per line). The embedded default configuration starts it, so mcpdeck
has something to show before you configure your own servers; it is also a
known-good peer for trying clients.

It offers the tools echo, add, sleep (with progress; cancellable) and fail,
the prompt greet, the resource demo://status (subscribable: it changes on
every call) and the template demo://greeting/{name}, whose name completes,
and sends an info log message every --log-interval so a live notification
stream is visible. It is the official Go SDK's server and speaks the
session revisions, 2024-11-05 to 2025-11-25 (a 2026-07-28 request gets
-32022 naming them). It exits when stdin closes, after answering what it
read before, except tool calls still running, which it drops.

The interval comes from --log-interval, else from $` + demoLogIntervalEnv + `,
else 5s; 0 or a negative duration turns the heartbeat off.`,
		Example: `  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' | mcpdeck demo-server`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("log-interval") {
				if v := os.Getenv(demoLogIntervalEnv); v != "" {
					d, err := time.ParseDuration(v)
					if err != nil {
						return withCode(ExitUsage, fmt.Errorf("reading $%s=%q: %w; use a duration such as 5s or 500ms, or 0 to turn the heartbeat off",
							demoLogIntervalEnv, v, err))
					}
					interval = d
				}
			}
			if interval <= 0 {
				interval = -1 // Options treats zero as "default"; here it means off.
			}

			// A client that closes our stdout would otherwise kill the process
			// with SIGPIPE; with the signal caught the write fails instead and
			// the server ends the session with a readable error.
			sigpipe := make(chan os.Signal, 1)
			signal.Notify(sigpipe, syscall.SIGPIPE)
			defer signal.Stop(sigpipe)

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := demoserver.Run(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), demoserver.Options{
				LogInterval: interval,
				Stderr:      cmd.ErrOrStderr(),
				Version:     version(),
			})
			if errors.Is(err, context.Canceled) {
				return nil // asked to stop by a signal: a clean exit
			}
			if err != nil {
				return withCode(ExitConnection, fmt.Errorf("serving the demo server on stdio: %w", err))
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&interval, "log-interval", demoserver.DefaultLogInterval,
		"how often to send the heartbeat log message (0 turns it off)")
	return cmd
}
