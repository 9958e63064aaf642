package cli

import (
	"github.com/spf13/cobra"
)

func newReplayCmd() *cobra.Command {
	return &cobra.Command{Use: "replay FILE", Args: cobra.ExactArgs(1), Hidden: true}
}
