package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/schema"
	"mcpdeck/ui"
	"mcpdeck/ui/present"
)

// toolDescriptionWidth keeps one tool to one row of an 120-column terminal.
const toolDescriptionWidth = 72

func newToolsCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	var sortBy string
	cmd := &cobra.Command{
		Use:   "tools [SERVER]... | tools SERVER TOOL",
		Short: "List the tools of servers (with schemas under --json), or one tool's details",
		Long: `tools connects to every enabled server (or the named ones, or the ad-hoc
server given with --url or --stdio), lists their tools and stops them.

tools SERVER TOOL (with an ad-hoc server: tools TOOL) prints one tool's
details instead: its whole description, its annotations, its input and
output schemas and an example of arguments built from the input schema;
--json prints the tool as below, schemas included. An unknown tool gets
"did you mean".

The table has one row per tool: SERVER, TOOL (the server's own name),
SWITCH (on; off when switched off with mcpdeck tools disable; changed when
its definition differs from the one pinned, CHANGED! when the new text
reads as instructions to the model: see below), TOKENS (what
listing it costs an agent's context, estimated as its bytes/4) and
DESCRIPTION (the title, then the description, cut to one line). Below it,
each server's total, and its total after switches. --sort cost puts the
costliest first. When a tool has an MCP App (_meta.ui), an APP column
says "app" for a tool whose results an app shows (open it with mcpdeck
app open), "app-only" for a tool only apps may call (a model never sees
it); the detail of such a tool shows its ui:// resource, visibility, CSP
and permissions.

Switches and pinned definitions (kept per server in
$XDG_STATE_HOME/mcpdeck/tools.json, by the server's name with its command
line and env names, or URL):

  mcpdeck tools disable SERVER TOOL...   switch tools off: calls are refused,
                                          the gateway does not offer them
  mcpdeck tools enable SERVER TOOL...    switch them on again
  mcpdeck tools accept SERVER TOOL...|--all   approve changed definitions

The first listing of a server pins each tool's definition (name,
description, schemas, annotations); a later listing whose definition
differs, or a tool added later that takes the name of another server's
tool, is changed: the gateway withholds it until it is accepted, and
mcpdeck check fails on it.

Exit status: 0 when every server listed its tools, 3 when a server failed
(the tools of the others are still printed), 2 for a usage or
configuration error, 4 when interrupted.

--json prints one object with every tool, sorted by normalized name:

  {"tools": [{
     "name": "demo__echo",            // normalized: unique across servers
     "server": "demo", "tool": "echo",
     "title": "...", "description": "...",   // omitted when empty
     "inputSchema": {...},
     "outputSchema": {...}, "annotations": {...},  // omitted when absent
     "taskSupport": "...", "icons": [...],         // omitted when absent
     "_meta": {...},         // the server's, as sent (MCP Apps: ui.resourceUri)
     "cost": {"bytes": N, "tokens": N},   // its definition as compact JSON; tokens = bytes/4
     "sha256": "...",        // of its definition (name, description, schemas, annotations)
     "pinnedSha256": "...",  // the definition approved; omitted when none is pinned
     "disabled": true,       // switched off; omitted when on
     "changed": {            // omitted unless changed since approved
       "kind": "definition", // or "shadows": added later, taking another server's tool name
       "fields": ["description", ...], "pinned": {...}, "pinnedAt": "...",
       "shadows": "SERVER",  // for "shadows"
       "instructionLike": ["..."]  // text in the new description aimed at the model
     }
  }],
  "servers": [{"server": "demo", "tools": N, "disabled": N, "changed": N,
               "cost": {...}, "costEnabled": {...}}],   // costEnabled: after switches
  "errors": [{"kind": "exited", "message": "...", "server": "..."}]}
                              // the servers that failed; omitted when none

When no server came up, the error object alone: {"error": {...}}.

A schema too large to print (over 1 MiB, nested over 128 levels, or over
4 MiB once indented) is replaced by a marker with its size:
{"x-mcpdeck-omitted": {"bytes": N, "nesting": D, "reason": "..."}}.`,
		Example: `  mcpdeck tools
  mcpdeck tools demo --json
  mcpdeck tools --url http://localhost:3001/mcp --header 'Authorization: Bearer $TOKEN'`,
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Tools }),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sortBy != "name" && sortBy != "cost" {
				return withCode(ExitUsage, fmt.Errorf("--sort %q: use name or cost", sortBy))
			}
			if server, tool, ok := toolDetailArgs(cmd, &tf, args); ok {
				return runToolDetail(cmd, &tf, server, tool, asJSON)
			}
			return runTools(cmd, &tf, args, asJSON, sortBy == "cost")
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON with schemas (shape in --help)")
	cmd.Flags().StringVar(&sortBy, "sort", "name", "order tools by `name` or cost (the costliest first)")
	cmd.AddCommand(newToolSwitchCmd(false), newToolSwitchCmd(true), newToolAcceptCmd())
	return cmd
}

// toolsOutput is the whole of tools --json.
type toolsOutput struct {
	Tools   []printedTool `json:"tools"`
	Servers []serverTools `json:"servers"`
	// Errors are the servers that failed, each as the error object's body.
	Errors []jsonErrorBody `json:"errors,omitempty"`
}

// printedTool is a tool as --json prints it (printable).
type printedTool struct {
	runtime.Tool
	// InputSchemaError says why the tool's input schema is not valid JSON
	// Schema (runtime.Tool.InputSchemaError), one violation a line, path
	// first; absent when it is valid. Calls of the tool are refused as
	// the server's schema problem (kind schema, exit 3) unless made with
	// --no-validate.
	InputSchemaError []string `json:"inputSchemaError,omitempty"`
}

// serverTools is one server's totals in tools --json.
type serverTools struct {
	Server      string           `json:"server"`
	Tools       int              `json:"tools"`
	Disabled    int              `json:"disabled"`
	Changed     int              `json:"changed"`
	Cost        runtime.ToolCost `json:"cost"`
	CostEnabled runtime.ToolCost `json:"costEnabled"`
}

// serverTotals are the totals of the servers that listed tools.
func serverTotals(snap *runtime.Snapshot) []serverTools {
	out := []serverTools{}
	for _, v := range snap.Servers {
		if len(v.Tools) == 0 {
			continue
		}
		st := serverTools{Server: v.Name, Tools: len(v.Tools), Cost: v.ToolCost, CostEnabled: v.ToolCostOn}
		for _, t := range v.Tools {
			if t.Disabled {
				st.Disabled++
			}
			if t.Changed != nil {
				st.Changed++
			}
		}
		out = append(out, st)
	}
	return out
}

func runTools(cmd *cobra.Command, tf *targetFlags, names []string, asJSON, byCost bool) error {
	return withTargets(cmd, tf, names, "tools", func(_ context.Context, rt *runtime.Controller) error {
		snap := rt.Snapshot()
		rememberNames(snap)
		if asJSON {
			if err := listFailed(cmd, snap); err != nil {
				return err
			}
		}

		errs, _ := failures(snap)
		out := toolsOutput{Tools: []printedTool{}, Servers: serverTotals(snap), Errors: jsonErrorsOf(errs)}
		for _, t := range snap.Tools {
			out.Tools = append(out.Tools, printable(t))
		}
		if byCost {
			sort.SliceStable(out.Tools, func(i, j int) bool { return out.Tools[i].Cost.Bytes > out.Tools[j].Cost.Bytes })
		}
		if asJSON {
			if err := present.WriteJSON(cmd.OutOrStdout(), out); err != nil {
				return err
			}
		} else {
			w := cmd.OutOrStdout()
			rows := make([][]string, 0, len(out.Tools))
			apps := slices.ContainsFunc(out.Tools, func(t printedTool) bool { _, ok := mcp.ToolUIOf(t.Meta); return ok })
			var invalid []string
			for _, pt := range out.Tools {
				t := pt.Tool
				row := []string{t.Server, present.Line(t.ServerTool) + present.SchemaTag(t), present.ToolSwitch(t), present.Tokens(t.Cost.Tokens)}
				if apps {
					row = append(row, appMark(t))
				}
				rows = append(rows, append(row, present.Truncate(toolSummary(t), toolDescriptionWidth)))
				if p := present.SchemaProblem(t); p != "" {
					invalid = append(invalid, fmt.Sprintf("%s %s: %s; calls are refused until the server fixes it, or made unchecked with --no-validate (mcpdeck tools %s %s says why)",
						t.Server, present.Line(t.ServerTool), p, t.Server, present.Line(t.ServerTool)))
				}
			}
			header := []string{"SERVER", "TOOL", "SWITCH", "TOKENS", "DESCRIPTION"}
			if apps {
				header = []string{"SERVER", "TOOL", "SWITCH", "TOKENS", "APP", "DESCRIPTION"}
			}
			printListed(cmd, snap, "tools", header, rows)
			for _, l := range invalid {
				fmt.Fprintf(w, "\n%s", l)
			}
			if len(invalid) > 0 {
				fmt.Fprintln(w)
			}
			for _, st := range out.Servers {
				fmt.Fprintf(w, "\n%s: %s, %s", st.Server, present.Count(st.Tools, "tool", "tools"), present.ToolCost(st.Cost))
				if st.Disabled > 0 {
					fmt.Fprintf(w, "; after switches %s, %s", present.Count(st.Tools-st.Disabled, "tool", "tools"), present.ToolCost(st.CostEnabled))
				}
				if st.Changed > 0 {
					fmt.Fprintf(w, "; %s changed since approved (mcpdeck tools %s TOOL shows how; mcpdeck tools accept %s TOOL approves)",
						present.Count(st.Changed, "tool", "tools"), st.Server, st.Server)
				}
				fmt.Fprintln(w)
			}
		}

		// Report every failed server, not just the first: a user fixing their
		// configuration wants the whole list in one run.
		if code := reportFailures(cmd.ErrOrStderr(), snap); code != ExitOK {
			return silentExit(code)
		}
		return nil
	})
}

// printable is a tool as --json prints it: a schema too large to print
// stands as schema.ForOutput's marker, so a hostile server cannot make
// mcpdeck print (and hold) hundreds of megabytes of indentation; an input
// schema that is not valid JSON Schema says why.
func printable(t runtime.Tool) printedTool {
	out := printedTool{Tool: t}
	if serr := t.InputSchemaError(); serr != nil {
		out.InputSchemaError = serr.Lines()
	}
	if len(t.InputSchema) > 0 {
		out.InputSchema = schema.ForOutput(t.InputSchema)
	}
	if len(t.OutputSchema) > 0 {
		out.OutputSchema = schema.ForOutput(t.OutputSchema)
	}
	return out
}

// appMark is the APP column: present.AppMark, "-" for a tool without an
// app.
func appMark(t runtime.Tool) string { return cmp.Or(present.AppMark(t), "-") }

// toolSummary is a tool's title and description as one line, its
// invisible characters shown (present.ShowHidden).
func toolSummary(t runtime.Tool) string {
	switch {
	case t.Title != "" && t.Description != "" && t.Title != t.Description:
		return present.ShowHidden(present.Line(t.Title + " — " + t.Description))
	case t.Description != "":
		return present.ShowHidden(present.Line(t.Description))
	default:
		return present.ShowHidden(present.Line(t.Title))
	}
}

// toolDetailArgs reports whether the arguments name one tool: TOOL with
// an ad-hoc server, or SERVER TOOL where TOOL is not a configured server.
func toolDetailArgs(cmd *cobra.Command, tf *targetFlags, args []string) (server, tool string, ok bool) {
	if tf.url != "" || tf.stdio != "" {
		if len(args) == 1 {
			return adHocName, args[0], true
		}
		return "", "", false
	}
	if len(args) != 2 {
		return "", "", false
	}
	// Invalid servers are kept: another server's broken definition does
	// not make a server's name read as a tool's.
	if cfg, err := loadRunnable(configFiles(cmd)); err == nil {
		if _, isServer := cfg.Server(args[1]); isServer {
			return "", "", false
		}
	}
	return args[0], args[1], true
}

// toolDetailWidth is the width tool details wrap at.
const toolDetailWidth = 100

func runToolDetail(cmd *cobra.Command, tf *targetFlags, server, tool string, asJSON bool) error {
	var names []string
	if server != adHocName {
		names = []string{server}
	}
	return withServer(cmd, tf, server, names, "tools", func(ctx context.Context, rt *runtime.Controller) error {
		snap := rt.Snapshot()
		if err := knownTool(snap, server, tool); err != nil {
			return err
		}
		v, _ := snap.Server(server)
		t, ok := runtime.LookupTool(v.Tools, tool)
		if !ok {
			return nil
		}
		if asJSON {
			return present.WriteJSON(cmd.OutOrStdout(), printable(*t))
		}
		// An app's CSP and permissions are on its resource: read it.
		var doc *mcp.AppDocument
		var readErr error
		if app, _ := mcp.ToolUIOf(t.Meta); app.ResourceURI != "" {
			raw, err := rt.ReadResource(ctx, v.Name, app.ResourceURI)
			if readErr = err; err == nil {
				d, err := mcp.AppDocumentOf(raw, app.ResourceURI)
				doc, readErr = &d, err
			}
		}
		_, err := io.WriteString(cmd.OutOrStdout(), ui.ToolDetail(*t, doc, readErr, toolDetailWidth))
		return err
	})
}
