package cli

import "github.com/spf13/cobra"

// newDemoServerCmd is a placeholder until the demo server lands.
func newDemoServerCmd() *cobra.Command {
	return &cobra.Command{Use: "demo-server", Short: "Run the built-in demo MCP server on stdio", Hidden: true}
}
