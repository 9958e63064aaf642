package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// The global flags every command that starts servers applies to its
// session: roots offered to servers (--root) and the log level asked of
// them (--log-level).
const (
	rootFlag     = "root"
	logLevelFlag = "log-level"
)

// addSessionFlags defines the global --root and --log-level.
func addSessionFlags(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringArray(rootFlag, nil, "offer `DIR` to servers as a root (roots/list; repeatable); servers with roots in mcp.json keep theirs")
	fl.String(logLevelFlag, "", "ask servers for log messages at level `L` and up ("+strings.Join(mcp.LevelNames(), ", ")+"); default info, or each server's logLevel")
}

// sessionOptions applies the global session flags to opts: --root
// directories made absolute, --log-level checked, and --protocol (when
// given, and opts names no protocol of its own: a suite's). It also gives the
// session the user's era memory (eras.json in the state directory) and tool
// decisions (tools.json: switches and pinned definitions); one that cannot
// be read is said on stderr, and the servers are probed afresh or their
// tools pinned afresh. A session without telemetry of its own (metrics:
// the TUI, watch, gateway, monitor) gets the command's (commandTelemetry:
// traces when --otlp or OTEL_* ask), so every command that talks to
// servers is traced.
func sessionOptions(cmd *cobra.Command, opts runtime.Options) (runtime.Options, error) {
	if opts.Telemetry == nil {
		tel, err := commandTelemetry(cmd)
		if err != nil {
			return opts, err
		}
		opts.Telemetry = tel
	}
	if opts.Eras == nil {
		mem, err := runtime.OpenEraMemory("")
		if err != nil {
			warnf(cmd.ErrOrStderr(), "%v", err)
		}
		opts.Eras = mem
	}
	if opts.Tools == nil {
		tools, err := runtime.OpenToolPolicy("")
		if err != nil {
			warnf(cmd.ErrOrStderr(), "%v", err)
		}
		opts.Tools = tools
	}
	dirs, _ := cmd.Flags().GetStringArray(rootFlag)
	for _, d := range dirs {
		if strings.TrimSpace(d) == "" {
			return opts, withCode(ExitUsage, fmt.Errorf("--root %q: name a directory", d))
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		opts.Roots = append(opts.Roots, d)
	}
	if opts.Protocol == "" {
		protocol, err := protocolSetting(cmd)
		if err != nil {
			return opts, err
		}
		opts.Protocol = protocol
	}
	if level, _ := cmd.Flags().GetString(logLevelFlag); level != "" {
		if !mcp.LogLevel(level).Known() {
			return opts, withCode(ExitUsage, fmt.Errorf("--log-level %q: use one of %s", level, strings.Join(mcp.LevelNames(), ", ")))
		}
		opts.LogLevel = level
	}
	return opts, nil
}
