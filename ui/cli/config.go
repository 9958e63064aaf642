package cli

import "github.com/spf13/cobra"

// newConfigCmd is a placeholder until the configuration work lands.
func newConfigCmd() *cobra.Command {
	return &cobra.Command{Use: "config", Short: "Show or validate the resolved configuration", Hidden: true}
}
