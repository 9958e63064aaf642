package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/record"
	"mcpdeck/ui/present"
)

// diffFlags are diff's own flags.
type diffFlags struct {
	stdio, urls, headers []string
	transport            string
	ignore               []string
	suites               []string
	asJSON               bool
}

func newDiffCmd() *cobra.Command {
	var df diffFlags
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare what two servers (or recordings) offer, by name: tools, prompts, resources, templates",
		Long: `diff compares what two MCP servers offer: their tools, prompts, resources
and resource templates, each matched by name (resources by URI, templates
by URI template), never by position — a list in another order is no
difference. For each item it says whether it was added in B, removed from
A, or changed, and what changed: description, title, annotations, _meta,
and for inputSchema and outputSchema a readable account of the schema
("+ property c (number, required)", "~ a: type number → string",
"~ a: now required"), with the JSON values that differ.

A and B are each one of:
  a server name from the configuration     demo
  a recording made with --record           session.jsonl  (session.jsonl#NAME
                                           picks a server of a recording
                                           that has several)
  a URL (Streamable HTTP, falling back     https://example.com/mcp
  to SSE)
or are given with --stdio 'CMD ARGS' and --url URL (repeatable), which
fill A, then B, after the names given. A recording is compared as its
server last listed (every page).

--ignore PATH leaves a path out, relative to
  {"tools": {NAME: tool}, "prompts": {NAME: prompt},
   "resources": {URI: resource}, "resourceTemplates": {URI_TEMPLATE: template}}
as a dotted path (tools.*.annotations) or a JSON pointer
(/resources/demo:~1~1a/_meta); * matches any one key.

--suite FILE runs a test suite (mcpdeck test's format) on A and then on B,
the suite's own server left aside, and compares the outcome of each step:
a step that passes on one and fails on the other is a difference. A
recording takes part as its mock (replay --serve). Snapshots are read,
never written.

--json prints {"a": {...}, "b": {...}, "changes": [...], "same": {...},
"suites": [{"suite", "file", "protocol", "a", "b", "different":
[{"key", "label", "pos", "a", "b"}]}], "different": bool}; each change is
{"kind", "name", "change", "a", "b", "fields": [{"field", "schema": [...],
"differences": [{"Path", "Recorded" (A's), "Live" (B's)}]}]}; each suite's
"a" and "b" are mcpdeck test --json's runs.

Exit status: 0 no difference; 1 a difference (in what they offer, or in
a suite's outcome); 2 usage, configuration, a file that is not a
recording, or a suite that does not parse; 3 a server could not be
connected.`,
		Example: `  mcpdeck diff prod staging
  mcpdeck diff yesterday.jsonl --stdio 'node build/server.js'
  mcpdeck diff --stdio 'npx -y @modelcontextprotocol/server-everything' --url http://127.0.0.1:3001/mcp
  mcpdeck diff a.jsonl b.jsonl --ignore 'tools.*._meta' --json
  mcpdeck diff prod staging --suite mcp-tests/smoke.mcptest.yaml`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(cmd, &df, args) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&df.stdio, "stdio", nil, "a stdio server to compare: `'CMD ARGS'` (repeatable; fills A, then B)")
	fl.StringArrayVar(&df.urls, "url", nil, "a remote server to compare at `URL` (repeatable; fills A, then B)")
	fl.StringArrayVar(&df.headers, "header", nil, "a request header for every --url, as 'K: V' (repeatable)")
	fl.StringVar(&df.transport, "transport", "", "transport for --url: http (Streamable HTTP) or sse (legacy)")
	fl.StringArrayVar(&df.ignore, "ignore", nil, "a `PATH` whose value may differ (repeatable; see --help)")
	fl.StringArrayVar(&df.suites, "suite", nil, "also run the test suite `FILE` (mcpdeck test's format) on both and compare the outcomes (repeatable)")
	fl.BoolVar(&df.asJSON, "json", false, "print the comparison as JSON (shape in --help)")
	return cmd
}

// diffSide is one of the two things compared.
type diffSide struct {
	Label  string `json:"label"`         // as the user named it
	Server string `json:"server"`        // the server's name in the configuration or recording
	Source string `json:"source"`        // "recording", "configuration", "stdio", "url"
	Info   string `json:"serverInfo"`    // the serverInfo it gave: name and version
	Era    string `json:"era,omitempty"` // legacy or modern
	Proto  string `json:"protocol,omitempty"`
	live   *config.Server
	path   string // a recording's file
	list   record.Listing
}

// runDiff compares the two sides.
func runDiff(cmd *cobra.Command, df *diffFlags, args []string) error {
	sides, err := diffSides(cmd, df, args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	var live []config.Server
	for _, s := range sides {
		if s.live != nil {
			live = append(live, *s.live)
		}
	}
	if len(live) > 0 {
		opts, err := sessionOptions(cmd, runtime.Options{Elicitor: runtime.DeclineElicitor{}, Auth: newAuthManager(cmd, 0)})
		if err != nil {
			return err
		}
		rt, err := startCommand(ctx, "diff", &config.Config{Servers: live}, opts)
		if err != nil {
			return err
		}
		defer shutdownRuntime(rt)
		snap := rt.Snapshot()
		for _, s := range sides {
			if s.live == nil {
				continue
			}
			if err := serverFailure(snap, s.Server); err != nil {
				return err
			}
			if s.list, err = liveListing(ctx, rt, s.Server); err != nil {
				if ctx.Err() != nil {
					return interrupted("diff")
				}
				return withCode(ExitConnection, fmt.Errorf("listing %s: %w", s.Label, err))
			}
			v, _ := snap.Server(s.Server)
			s.Info = infoWords(v.ServerInfo)
			s.Era, s.Proto = v.Era.String(), v.ProtocolVersion
		}
	}
	d, err := record.CompareListings(sides[0].list, sides[1].list, df.ignore)
	if err != nil {
		return withCode(ExitConnection, err)
	}
	suites, err := runDiffSuites(ctx, cmd, sides, df.suites)
	if err != nil {
		return err
	}
	different := len(d.Changes) > 0
	for _, s := range suites {
		different = different || len(s.Different) > 0
	}
	out := cmd.OutOrStdout()
	if df.asJSON {
		if d.Changes == nil {
			d.Changes = []record.ItemChange{}
		}
		if err := present.WriteJSON(out, struct {
			A *diffSide `json:"a"`
			B *diffSide `json:"b"`
			record.ListingDiff
			Suites    []suiteComparison `json:"suites,omitempty"`
			Different bool              `json:"different"`
		}{sides[0], sides[1], d, suites, different}); err != nil {
			return err
		}
	} else {
		printDiff(out, sides, d)
		printDiffSuites(out, suites)
	}
	if different {
		return silentExit(ExitToolError)
	}
	return nil
}

// diffSides resolves A and B: names (configured servers, recordings,
// URLs) first, then --stdio and --url.
func diffSides(cmd *cobra.Command, df *diffFlags, args []string) ([]*diffSide, error) {
	var sides []*diffSide
	var configured []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://"):
			df.urls = append([]string{a}, df.urls...)
		case isRecording(a):
			s, err := recordedSide(a)
			if err != nil {
				return nil, err
			}
			sides = append(sides, s)
		default:
			configured = append(configured, a)
			sides = append(sides, &diffSide{Label: a, Server: a, Source: "configuration"})
		}
	}
	for _, c := range df.stdio {
		sides = append(sides, &diffSide{Label: "stdio: " + c, Source: "stdio"})
		tf := targetFlags{stdio: c}
		s, _, err := tf.adHoc()
		if err != nil {
			return nil, err
		}
		sides[len(sides)-1].live = &s
	}
	for _, u := range df.urls {
		sides = append(sides, &diffSide{Label: u, Source: "url"})
		tf := targetFlags{url: u, headers: df.headers, transport: df.transport}
		s, _, err := tf.adHoc()
		if err != nil {
			return nil, err
		}
		sides[len(sides)-1].live = &s
	}
	if len(sides) != 2 {
		return nil, withCode(ExitUsage, fmt.Errorf("diff compares two servers: give A and B (got %d); each a configured server, a recording, a URL, --stdio or --url", len(sides)))
	}
	if len(configured) > 0 {
		cfg, err := resolveTargets(cmd, &targetFlags{}, configured)
		if err != nil {
			return nil, err
		}
		for _, s := range sides {
			if s.Source != "configuration" {
				continue
			}
			// The named servers come in the order they were named, not
			// in name order: Config.Server's search does not apply.
			i := slices.IndexFunc(cfg.Servers, func(c config.Server) bool { return c.Name == s.Server })
			srv := cfg.Servers[i]
			s.live = &srv
		}
	}
	// Two live sides need two names in the one runtime that connects them.
	for i, s := range sides {
		if s.live == nil {
			continue
		}
		if s.Source != "configuration" {
			s.live.Name = string(rune('A' + i))
		}
		s.Server = s.live.Name
	}
	if sides[0].live != nil && sides[1].live != nil && sides[0].Server == sides[1].Server {
		return nil, withCode(ExitUsage, fmt.Errorf("the two sides, A and B, are the same server %q: name two different ones", sides[0].Server))
	}
	return sides, nil
}

// isRecording reports whether a name is a file (FILE#SERVER: FILE is).
func isRecording(name string) bool {
	path, _, _ := strings.Cut(name, "#")
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// recordedSide reads a recording as one side: what its server last listed.
func recordedSide(name string) (*diffSide, error) {
	path, server, _ := strings.Cut(name, "#")
	rec, err := record.ReadFile(path)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	m, err := record.NewMock(rec, server)
	if err != nil {
		if errors.Is(err, record.ErrSeveralServers) {
			err = fmt.Errorf("%w as %s#SERVER", err, path)
		}
		return nil, withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
	}
	list, err := m.Listing()
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
	}
	return &diffSide{Label: name, Server: m.Server, Source: "recording", Info: infoWords(m.Info), Era: m.Era, Proto: m.Version, path: path, list: list}, nil
}

func infoWords(i mcp.Implementation) string {
	return strings.TrimSpace(i.Name + " " + i.Version)
}

// liveListing lists what a connected server offers, every page, as it
// sends it: the lists its capabilities declare.
func liveListing(ctx context.Context, rt *runtime.Controller, server string) (record.Listing, error) {
	out := record.Listing{Lists: map[string][]json.RawMessage{}}
	v, _ := rt.Snapshot().Server(server)
	var caps mcp.ServerCapabilities
	_ = json.Unmarshal(v.Capabilities, &caps)
	for _, k := range record.ListKinds {
		switch {
		case k.Field == "tools" && caps.Tools == nil,
			k.Field == "prompts" && caps.Prompts == nil,
			(k.Field == "resources" || k.Field == "resourceTemplates") && caps.Resources == nil:
			continue
		}
		cursor := ""
		for page := 0; page < 1000; page++ {
			var params map[string]any
			if cursor != "" {
				params = map[string]any{"cursor": cursor}
			}
			raw, err := rt.Request(ctx, server, k.Method, params)
			if err != nil {
				return out, err
			}
			items, next, err := record.PageOf(k, raw)
			if err != nil {
				return out, fmt.Errorf("%s: %w", k.Method, err)
			}
			out.Lists[k.Field] = append(out.Lists[k.Field], items...)
			if next == "" {
				break
			}
			cursor = next
		}
	}
	return out, nil
}

// printDiff writes the comparison for people.
func printDiff(w io.Writer, sides []*diffSide, d record.ListingDiff) {
	for i, s := range sides {
		fmt.Fprintf(w, "%c: %s", 'A'+i, present.Line(s.Label))
		var about []string
		if s.Info != "" {
			about = append(about, present.Line(s.Info))
		}
		if s.Proto != "" {
			about = append(about, s.Era+" "+s.Proto)
		}
		if len(about) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(about, ", "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, k := range record.ListKinds {
		added, removed, changed := d.Count(k.Kind, "added"), d.Count(k.Kind, "removed"), d.Count(k.Kind, "changed")
		same := d.Same[k.Field]
		if added+removed+changed == 0 {
			fmt.Fprintf(w, "%s: no difference (%d alike)\n", k.Field, same)
			continue
		}
		fmt.Fprintf(w, "%s: %d added, %d removed, %d changed, %d alike\n", k.Field, added, removed, changed, same)
		for _, c := range d.Changes {
			if c.Kind != k.Kind {
				continue
			}
			fmt.Fprintf(w, "  %s\n", c)
			for _, f := range c.Fields {
				printField(w, f)
			}
		}
	}
}

// printField writes one changed member of an item: a schema's account, or
// each value that differs (A's, then B's).
func printField(w io.Writer, f record.FieldChange) {
	if len(f.Schema) > 0 {
		fmt.Fprintf(w, "      %s:\n", present.Line(f.Field))
		for _, l := range f.Schema {
			fmt.Fprintf(w, "        %s\n", present.Line(l))
		}
		return
	}
	for _, d := range f.Differences {
		where := f.Field
		if d.Path != "/" {
			where += d.Path
		}
		fmt.Fprintf(w, "      %s: %s → %s\n", present.Line(where), d.Recorded, d.Live)
	}
}
