package cli

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/yosida95/uritemplate/v3"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/present"
)

// The commands for a server's resources, prompts and completions. Each
// starts the server it names (or the ad-hoc one), asks, prints, and stops
// it; --json prints stable JSON; exit codes as everywhere: 2 for usage
// (an unknown server, prompt or tool gets "did you mean"), 3 when the
// server fails or answers with an error, 4 when interrupted.

// oneServer resolves SERVER and the rest of the arguments: with an
// ad-hoc server there is no SERVER argument.
func oneServer(tf *targetFlags, args []string, usage string) (server string, names, rest []string, err error) {
	if _, _, err := tf.adHoc(); err != nil {
		return "", nil, nil, err
	}
	if tf.url != "" || tf.stdio != "" {
		return adHocName, nil, args, nil
	}
	if len(args) == 0 {
		return "", nil, nil, withCode(ExitUsage, errors.New("give "+usage))
	}
	return args[0], args[:1], args[1:], nil
}

// openOne starts one server and returns the runtime (the caller shuts it
// down) once the server is ready.
func openOne(ctx context.Context, cmd *cobra.Command, tf *targetFlags, server string, names []string, what string) (*runtime.Controller, error) {
	sampler, err := samplerFlag(cmd) // prompt and read take --sampling
	if err != nil {
		return nil, err
	}
	rt, err := openTargets(ctx, cmd, tf, names, what, runtime.Options{Elicitor: runtime.DeclineElicitor{}, Sampler: sampler})
	if err != nil {
		return nil, err
	}
	if err := serverFailure(rt.Snapshot(), server); err != nil {
		shutdownRuntime(rt)
		return nil, err
	}
	rememberNames(rt.Snapshot())
	return rt, nil
}

// requestFailure maps a failed request to its exit code.
func requestFailure(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return interrupted(what)
	}
	return withCode(exitCodeOf(err), err)
}

// knownTool refuses a tool the server does not list, naming the closest.
func knownTool(snap *runtime.Snapshot, server, tool string) error {
	v, _ := snap.Server(server)
	if _, ok := runtime.LookupTool(v.Tools, tool); ok {
		return nil
	}
	var names []string
	for _, t := range v.Tools {
		names = append(names, t.ServerTool)
	}
	return withCode(ExitUsage, aboutServer(server, runtime.KindUnknownTool,
		fmt.Errorf("unknown tool %q on server %q%s; list them with mcpdeck tools %s", tool, server, didYouMean(tool, names), server)))
}

func newResourcesCmd() *cobra.Command {
	var tf targetFlags
	var asJSON, templates bool
	cmd := &cobra.Command{
		Use:   "resources [SERVER]... [--templates]",
		Short: "List the resources (or resource templates) of servers",
		Long: `resources connects to every enabled server (or the named ones, or the ad-hoc
server), lists their resources and stops them. --templates lists the
resource templates (RFC 6570 URI templates) instead; read one with
mcpdeck read SERVER URI after filling in its variables (mcpdeck complete
suggests values).

--json prints {"resources": [{"server", "uri", "name", "title",
"description", "mimeType", "size", "annotations", "icons", "_meta"}]} or
{"templates": [{"server", "uriTemplate", "name", "title", "description",
"mimeType", "annotations", "icons", "_meta"}]}: what the server sent,
absent members left out. A server that failed is in "errors": [{"kind",
"message", "server"}]; when none came up, the error object alone.

Exit status: 0 when every server listed, 3 when a server failed (the
others are still printed), 2 for a usage error, 4 when interrupted.`,
		Example: `  mcpdeck resources demo
  mcpdeck resources demo --templates --json`,
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			if templates {
				return runList(cmd, &tf, args, asJSON, listing[runtime.ResourceTemplate]{
					what: "resource templates", key: "templates",
					of:     func(v runtime.ServerSnapshot) []runtime.ResourceTemplate { return v.Templates },
					header: []string{"SERVER", "NAME", "URI TEMPLATE", "DESCRIPTION"},
					row: func(r runtime.ResourceTemplate) []string {
						return []string{r.Server, r.Name, r.URITemplate, listSummary(r.Title, r.Description)}
					},
				})
			}
			return runList(cmd, &tf, args, asJSON, listing[runtime.Resource]{
				what: "resources", key: "resources",
				of:     func(v runtime.ServerSnapshot) []runtime.Resource { return v.Resources },
				header: []string{"SERVER", "NAME", "URI", "TYPE"},
				row: func(r runtime.Resource) []string {
					return []string{r.Server, r.Name, r.URI, present.OrHyphen(r.MIMEType)}
				},
			})
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON (shape in --help)")
	cmd.Flags().BoolVar(&templates, "templates", false, "list resource templates instead of resources")
	return cmd
}

// listSummary is the DESCRIPTION column: the title, else the description.
func listSummary(title, description string) string {
	return present.Truncate(present.Line(cmp.Or(title, description)), toolDescriptionWidth)
}

// listing is one kind of item the servers list (resources, resource
// templates, prompts), as runList prints it.
type listing[T any] struct {
	what   string                           // in messages: "no resources: …"
	key    string                           // the --json member: {"resources": [...]}
	of     func(runtime.ServerSnapshot) []T // one server's items
	header []string
	row    func(T) []string
}

// runList is the shape of resources, templates and prompts: start the
// servers, gather every server's items, print them (--json: as the
// servers sent them), report every failed server.
func runList[T any](cmd *cobra.Command, tf *targetFlags, names []string, asJSON bool, l listing[T]) error {
	return withTargets(cmd, tf, names, l.what, func(_ context.Context, rt *runtime.Controller) error {
		snap := rt.Snapshot()
		rememberNames(snap)
		if asJSON {
			if err := listFailed(cmd, snap); err != nil {
				return err
			}
		}
		all := []T{} // [] in --json, never null
		var rows [][]string
		for _, v := range snap.Servers {
			for _, it := range l.of(v) {
				all = append(all, it)
				rows = append(rows, l.row(it))
			}
		}
		if asJSON {
			out := map[string]any{l.key: all}
			if errs, _ := failures(snap); len(errs) > 0 {
				out["errors"] = jsonErrorsOf(errs) // each failed server, as the error object's body
			}
			if err := present.WriteJSON(cmd.OutOrStdout(), out); err != nil {
				return err
			}
		} else {
			printListed(cmd, snap, l.what, l.header, rows)
		}
		if code := reportFailures(cmd.ErrOrStderr(), snap); code != ExitOK {
			return silentExit(code)
		}
		return nil
	})
}

// printListed prints the rows under header; with no rows it prints no
// table, a header alone reading as a list that came back empty: when a
// server failed, stderr says why (reportFailures), else it says that the
// servers list none.
func printListed(cmd *cobra.Command, snap *runtime.Snapshot, what string, header []string, rows [][]string) {
	if len(rows) > 0 {
		printTable(cmd.OutOrStdout(), header, rows)
		return
	}
	if _, code := failures(snap); code != ExitOK {
		return
	}
	if len(snap.Servers) == 1 {
		warnf(cmd.ErrOrStderr(), "no %s: %s lists none", what, snap.Servers[0].Name)
	} else {
		warnf(cmd.ErrOrStderr(), "no %s: none of the %d servers lists any", what, len(snap.Servers))
	}
}

func newReadCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	var outFile string
	cmd := &cobra.Command{
		Use:   "read SERVER URI [-o FILE]",
		Short: "Read a resource",
		Long: `read starts SERVER (or the ad-hoc server, then SERVER is left out), reads
the resource at URI (resources/read) and prints it: text as it is, binary
contents as one line with their type and size. -o FILE writes the
contents to FILE instead: the bytes of a binary resource, the text of a
text one. --json prints the result as the server sent it:
{"contents": [{"uri", "mimeType", "text" | "blob"}]}.

Exit status: 0 read; 2 usage error; 3 the server failed or answered with
an error (an unknown URI among them); 4 interrupted.`,
		Example: `  mcpdeck read demo demo://status
  mcpdeck read demo demo://greeting/Ada --json
  mcpdeck read everything test://static/resource/2 -o resource.bin`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Resources }),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, names, rest, err := oneServer(&tf, args, "SERVER and URI, e.g. mcpdeck read demo demo://status")
			if err != nil {
				return err
			}
			if len(rest) != 1 {
				return withCode(ExitUsage, errors.New("give SERVER and URI, e.g. mcpdeck read demo demo://status (list them with mcpdeck resources)"))
			}
			uri := rest[0]
			return withServer(cmd, &tf, server, names, "read", func(ctx context.Context, rt *runtime.Controller) error {
				raw, err := rt.ReadResource(ctx, server, uri)
				if err != nil {
					err = requestFailure(ctx, "read", err)
					if v, ok := rt.Snapshot().Server(server); ok {
						var uris []string
						for _, r := range v.Resources {
							uris = append(uris, r.URI)
						}
						if hint := didYouMean(uri, uris); hint != "" {
							warnf(cmd.ErrOrStderr(), "%q is not among the resources %s lists%s", uri, server, hint)
						}
					}
					return err
				}
				return writeRead(cmd, raw, outFile, asJSON)
			})
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as the server sent it")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write the contents to `FILE` (binary as its bytes)")
	addSamplingFlag(cmd, "")
	return cmd
}

func writeRead(cmd *cobra.Command, raw json.RawMessage, outFile string, asJSON bool) error {
	var r mcp.ReadResourceResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return withCode(ExitConnection, fmt.Errorf("the server's resources/read result is not one: %w", err))
	}
	if outFile != "" {
		var data []byte
		for _, c := range r.Contents {
			if !c.IsBlob() {
				data = append(data, c.Text...)
				continue
			}
			b, err := base64.StdEncoding.DecodeString(c.Blob)
			if err != nil {
				return withCode(ExitConnection, fmt.Errorf("the blob of %s is not base64: %w", c.URI, err))
			}
			data = append(data, b...)
		}
		if err := os.WriteFile(outFile, data, 0o600); err != nil {
			return withCode(ExitUsage, fmt.Errorf("writing %s: %w", outFile, err))
		}
		warnf(cmd.ErrOrStderr(), "wrote %d bytes to %s", len(data), outFile)
		return nil
	}
	out := cmd.OutOrStdout()
	if asJSON {
		return present.WriteJSON(out, raw)
	}
	for i, c := range r.Contents {
		if len(r.Contents) > 1 {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "── %s%s\n", present.Line(c.URI), present.Line(suffix(" ", c.MIMEType)))
		}
		if !c.IsBlob() {
			text := present.Clean(c.Text)
			io.WriteString(out, text)
			if !strings.HasSuffix(text, "\n") {
				io.WriteString(out, "\n")
			}
			continue
		}
		fmt.Fprintf(out, "[binary %s, %d bytes: write it to a file with -o FILE]\n", present.Line(orUnknown(c.MIMEType)), base64Size(c.Blob))
	}
	return nil
}

func newPromptsCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompts [SERVER]...",
		Short: "List the prompts of servers",
		Long: `prompts connects to every enabled server (or the named ones, or the ad-hoc
server), lists their prompts with their arguments (required ones marked *)
and stops them. Get one with mcpdeck prompt SERVER NAME.

--json prints {"prompts": [{"server", "name", "title", "description",
"arguments": [{"name", "title", "description", "required"}], "icons",
"_meta"}]}: what the server sent, absent members left out. A server
that failed is in "errors": [{"kind", "message", "server"}]; when none
came up, the error object alone.

Exit status: 0 when every server listed, 3 when a server failed, 2 for a
usage error, 4 when interrupted.`,
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runList(cmd, &tf, args, asJSON, listing[runtime.Prompt]{
				what: "prompts", key: "prompts",
				of:     func(v runtime.ServerSnapshot) []runtime.Prompt { return v.Prompts },
				header: []string{"SERVER", "PROMPT", "ARGUMENTS", "DESCRIPTION"},
				row: func(p runtime.Prompt) []string {
					return []string{p.Server, p.Name, argList(p), listSummary(p.Title, p.Description)}
				},
			})
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON (shape in --help)")
	return cmd
}

func argList(p runtime.Prompt) string {
	var args []string
	for _, a := range p.Arguments {
		n := a.Name
		if a.Required {
			n += "*"
		}
		args = append(args, n)
	}
	return present.OrHyphen(strings.Join(args, ", "))
}

func newPromptCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompt SERVER NAME [ARGS_JSON | KEY=VALUE...]",
		Short: "Get a prompt's messages",
		Long: `prompt starts SERVER (or the ad-hoc server, then SERVER is left out), gets
the prompt NAME (prompts/get) with its arguments and prints its messages:
each message's role, then its content (text as text, images and audio as
one line, resources by URI).

Arguments are a JSON object of strings, or KEY=VALUE words. A required
argument left out is refused before anything is sent.

--json prints the result as the server sent it:
{"description": "...", "messages": [{"role": "user", "content": {...}}]}.

Exit status: 0 success; 2 usage error (an unknown prompt, a missing
argument); 3 the server failed or answered with an error; 4 interrupted.`,
		Example: `  mcpdeck prompt demo greet name=Ada
  mcpdeck prompt demo greet '{"name":"Ada"}' --json`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Prompts }),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, names, rest, err := oneServer(&tf, args, "SERVER and NAME, e.g. mcpdeck prompt demo greet name=Ada")
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return withCode(ExitUsage, errors.New("give the prompt's NAME, e.g. mcpdeck prompt demo greet name=Ada (list them with mcpdeck prompts)"))
			}
			name := rest[0]
			promptArgs, err := parsePromptArgs(rest[1:])
			if err != nil {
				return err
			}
			return withServer(cmd, &tf, server, names, "prompt", func(ctx context.Context, rt *runtime.Controller) error {
				if err := checkPrompt(rt.Snapshot(), server, name, promptArgs); err != nil {
					return err
				}
				raw, err := rt.GetPrompt(ctx, server, name, promptArgs)
				if err != nil {
					return requestFailure(ctx, "prompt", err)
				}
				if asJSON {
					return present.WriteJSON(cmd.OutOrStdout(), raw)
				}
				return writeMessages(cmd.OutOrStdout(), raw)
			})
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as the server sent it")
	addSamplingFlag(cmd, "")
	return cmd
}

// parsePromptArgs reads ARGS_JSON (an object of strings) or KEY=VALUE words.
func parsePromptArgs(words []string) (map[string]string, error) {
	out := map[string]string{}
	if len(words) == 1 && strings.HasPrefix(strings.TrimSpace(words[0]), "{") {
		var raw map[string]any
		if err := json.Unmarshal([]byte(words[0]), &raw); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("the arguments are not a JSON object: %v; give {\"key\":\"value\"} or key=value words", err))
		}
		for k, v := range raw {
			s, ok := v.(string)
			if !ok {
				enc, _ := json.Marshal(v)
				s = string(enc) // prompt arguments are strings: send what was meant
			}
			out[k] = s
		}
		return out, nil
	}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, withCode(ExitUsage, fmt.Errorf("argument %q: write KEY=VALUE, or give one JSON object", w))
		}
		out[k] = v
	}
	return out, nil
}

// checkPrompt refuses an unknown prompt or a missing required argument
// before anything is sent.
func checkPrompt(snap *runtime.Snapshot, server, name string, args map[string]string) error {
	v, _ := snap.Server(server)
	var names []string
	for _, p := range v.Prompts {
		if p.Name != name {
			names = append(names, p.Name)
			continue
		}
		var missing []string
		for _, a := range p.Arguments {
			if _, ok := args[a.Name]; a.Required && !ok {
				missing = append(missing, a.Name)
			}
		}
		if len(missing) > 0 {
			return withCode(ExitUsage, fmt.Errorf("prompt %q needs %s; give it as %s=VALUE", name, strings.Join(missing, ", "), missing[0]))
		}
		return nil
	}
	return withCode(ExitUsage, aboutServer(server, runtime.KindUnknownPrompt,
		fmt.Errorf("no prompt %q on server %q%s; list them with mcpdeck prompts %s", name, server, didYouMean(name, names), server)))
}

// completionArgument refuses a completion the server can only answer
// with nothing: an unknown prompt, a template the server does not list
// (when it lists some), or an ARG that is not one of the prompt's
// arguments or the template's variables. Asked anyway, a server answers
// no values, or an error whose advice is a tool's; either reads as "no
// completions" rather than as the typo it is.
func completionArgument(snap *runtime.Snapshot, server, prompt, template, arg string) error {
	v, _ := snap.Server(server)
	var what string
	var have []string
	if prompt != "" {
		what = fmt.Sprintf("prompt %q", prompt)
		i := slices.IndexFunc(v.Prompts, func(p runtime.Prompt) bool { return p.Name == prompt })
		if i < 0 {
			return checkPrompt(snap, server, prompt, nil)
		}
		for _, a := range v.Prompts[i].Arguments {
			have = append(have, a.Name)
		}
	} else {
		what = fmt.Sprintf("resource template %q", template)
		var listed []string
		for _, t := range v.Templates {
			listed = append(listed, t.URITemplate)
		}
		if len(listed) > 0 && !slices.Contains(listed, template) {
			return withCode(ExitUsage, fmt.Errorf("no %s on server %q%s; list them with mcpdeck resources %s --templates",
				what, server, didYouMean(template, listed), server))
		}
		t, err := uritemplate.New(template)
		if err != nil {
			return withCode(ExitUsage, fmt.Errorf("--resource %q is not a URI template: %w", template, err))
		}
		have = t.Varnames()
	}
	if slices.Contains(have, arg) {
		return nil
	}
	if len(have) == 0 {
		return withCode(ExitUsage, fmt.Errorf("the %s on server %q takes no arguments, so %q has nothing to complete", what, server, arg))
	}
	return withCode(ExitUsage, fmt.Errorf("the %s on server %q has no argument %q%s; its arguments: %s",
		what, server, arg, didYouMean(arg, have), strings.Join(have, ", ")))
}

// writeMessages prints a prompts/get result for a person.
func writeMessages(w io.Writer, raw json.RawMessage) error {
	var r mcp.GetPromptResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return withCode(ExitConnection, fmt.Errorf("the server's prompts/get result is not one: %w", err))
	}
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n\n", present.Line(r.Description))
	}
	for i, m := range r.Messages {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "[%s]\n", present.Line(m.Role))
		writeResult(w, &runtime.Result{Content: []runtime.Content{m.Content}})
	}
	return nil
}

func newCompleteCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	var prompt, template string
	var contextArgs []string
	cmd := &cobra.Command{
		Use:   "complete SERVER (--prompt NAME | --resource TEMPLATE) ARG PREFIX",
		Short: "Ask a server to complete an argument of a prompt or resource template",
		Long: `complete starts SERVER (or the ad-hoc server, then SERVER is left out) and
asks it for values of the argument ARG starting with PREFIX
(completion/complete), for the prompt NAME or the resource template
TEMPLATE. --context KEY=VALUE gives arguments already chosen. It prints
one value a line; --json prints {"values": [...], "total": N,
"hasMore": true}.

Exit status: 0 success (also with no values); 2 usage error (also an
unknown prompt, a template the server does not list, or an ARG that is
not one of the prompt's arguments or the template's variables); 3 the
server failed, does not offer completions or answered with an error; 4
interrupted.`,
		Example: `  mcpdeck complete demo --prompt greet name Gr
  mcpdeck complete demo --resource 'demo://greeting/{name}' name A --json`,
		Args:              cobra.RangeArgs(2, 3),
		ValidArgsFunction: completeFirstServer(nil),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, names, rest, err := oneServer(&tf, args, "SERVER, ARG and PREFIX")
			if err != nil {
				return err
			}
			if len(rest) != 2 {
				return withCode(ExitUsage, errors.New("give ARG and PREFIX (an empty PREFIX is ''), e.g. mcpdeck complete demo --prompt greet name Gr"))
			}
			if (prompt == "") == (template == "") {
				return withCode(ExitUsage, errors.New("give one of --prompt NAME or --resource TEMPLATE"))
			}
			ctxArgs, err := parsePromptArgs(contextArgs)
			if err != nil {
				return err
			}
			return withServer(cmd, &tf, server, names, "complete", func(ctx context.Context, rt *runtime.Controller) error {
				if err := completionArgument(rt.Snapshot(), server, prompt, template, rest[0]); err != nil {
					return err
				}
				c, err := rt.Complete(ctx, runtime.CompleteRequest{Server: server, Ref: runtime.CompletionRef{Prompt: prompt, Template: template},
					Argument: rest[0], Value: rest[1], Context: ctxArgs})
				if err != nil {
					return requestFailure(ctx, "complete", err)
				}
				if c.Values == nil {
					c.Values = []string{}
				}
				if asJSON {
					return present.WriteJSON(cmd.OutOrStdout(), c)
				}
				for _, v := range c.Values {
					fmt.Fprintln(cmd.OutOrStdout(), present.Line(v))
				}
				if c.HasMore || c.Total > len(c.Values) {
					warnf(cmd.ErrOrStderr(), "the server has more values (%d in all); type more of the prefix", c.Total)
				}
				return nil
			})
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON")
	cmd.Flags().StringVar(&prompt, "prompt", "", "complete an argument of the prompt `NAME`")
	cmd.Flags().StringVar(&template, "resource", "", "complete a variable of the resource `TEMPLATE` (its URI template)")
	cmd.Flags().StringArrayVar(&contextArgs, "context", nil, "an argument already chosen, as `KEY=VALUE` (repeatable)")
	return cmd
}
