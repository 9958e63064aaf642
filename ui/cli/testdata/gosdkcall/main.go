// Command gosdkcall is the official Go SDK's one-shot client, for
// comparing start-up with mcpdeck call: it starts a stdio server, calls
// one tool, prints its text and exits. Built by the start-up benchmark;
// not part of mcpdeck.
//
//	gosdkcall SERVER-COMMAND [ARGS...] -- TOOL JSON-ARGS
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	args := os.Args[1:]
	sep := -1
	for i, a := range args {
		if a == "--" {
			sep = i
		}
	}
	if sep < 1 || len(args) != sep+3 {
		fmt.Fprintln(os.Stderr, "usage: gosdkcall SERVER-COMMAND [ARGS...] -- TOOL JSON-ARGS")
		os.Exit(2)
	}
	var toolArgs map[string]any
	if err := json.Unmarshal([]byte(args[sep+2]), &toolArgs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdkcall", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(args[0], args[1:sep]...)}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: args[sep+1], Arguments: toolArgs})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			fmt.Println(t.Text)
		}
	}
}
