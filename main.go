// Command mcpdeck is an operations console for Model Context Protocol servers:
// a terminal UI plus a headless command line over one runtime.
//
// main.go only wires: the command line lives in ui/cli.
package main

import (
	"os"

	"mcpdeck/ui/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
