package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"mcpdeck/runtime/mcp"
)

// protocolFlag is the persistent --protocol flag: the protocol era for
// every server of the run.
const protocolFlag = "protocol"

// addProtocolFlag declares --protocol on the root command, for every
// command. Its default ("auto") is not applied over a server's own
// "protocol" setting: only a flag given explicitly overrides mcp.json,
// since naming an era on the command line is the more deliberate choice.
func addProtocolFlag(root *cobra.Command) {
	root.PersistentFlags().String(protocolFlag, "auto",
		"the protocol era: auto (probe for 2026-07-28, fall back to initialize), legacy, modern, or one `REVISION`; given, it overrides each server's \"protocol\" in mcp.json")
}

// protocolSetting returns the --protocol value to hand the runtime: ""
// when the flag was not given (each server's own setting applies), else
// the value, checked.
func protocolSetting(cmd *cobra.Command) (string, error) {
	f := cmd.Flags().Lookup(protocolFlag)
	if f == nil || !f.Changed {
		return "", nil
	}
	if _, err := mcp.ParsePreference(f.Value.String()); err != nil {
		return "", withCode(ExitUsage, fmt.Errorf("--protocol: %w", err))
	}
	return f.Value.String(), nil
}
