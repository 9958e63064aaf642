package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime/registry"
	"mcpdeck/ui/present"
)

// registryTimeout bounds one exchange with the registry.
const registryTimeout = 30 * time.Second

// registryURL is --registry, else $MCPDECK_REGISTRY, else the official
// registry.
func registryURL(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(registry.EnvURL); env != "" {
		return env
	}
	return registry.DefaultURL
}

// openRegistry is a client of the registry --registry names and a
// context bounding the exchange; done releases both.
func openRegistry(cmd *cobra.Command, flag string) (c *registry.Client, ctx context.Context, done func(), err error) {
	c, err = registry.New(registryURL(flag), nil)
	if err != nil {
		return nil, nil, nil, withCode(ExitUsage, err)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), registryTimeout)
	return c, ctx, func() { cancel(); c.CloseIdle() }, nil
}

// registryError maps a registry failure to an exit code: not found is a
// usage error, anything else a connection failure.
func registryError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, registry.ErrNotFound), errors.Is(err, registry.ErrUnsupported), errors.Is(err, registry.ErrNoSuchWay):
		return withCode(ExitUsage, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return withCode(ExitTimeout, fmt.Errorf("the registry did not answer in time: %w", err))
	}
	return withCode(ExitConnection, err)
}

func newRegistryCmd() *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Search the MCP Registry and show its servers",
		Long: `registry reads the MCP Registry's public API (version v0.1): the official
registry at ` + registry.DefaultURL + ` unless --registry or $` + registry.EnvURL + `
names another that speaks the same API (a company's own registry).
Install a server with mcpdeck add NAME --from-registry SERVER[@VERSION].`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&url, "registry", "", "the registry's base `URL` (default $"+registry.EnvURL+", else "+registry.DefaultURL+")")
	cmd.AddCommand(newRegistrySearchCmd(&url), newRegistryShowCmd(&url))
	return cmd
}

func newRegistrySearchCmd(url *string) *cobra.Command {
	var cursor string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search [QUERY]",
		Short: "List the registry's servers whose name or description contains QUERY",
		Long: `search lists the latest version of each server whose name or
description contains QUERY (every server without one), a page at a time:
when there are more, the last line gives the --cursor of the next page.

--json prints {"servers": [the registry's entries], "nextCursor": "..."}.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ctx, done, err := openRegistry(cmd, *url)
			if err != nil {
				return err
			}
			defer done()
			q := ""
			if len(args) > 0 {
				q = args[0]
			}
			page, err := c.Search(ctx, q, cursor, limit)
			if err != nil {
				return registryError(err)
			}
			if asJSON {
				if page.Servers == nil {
					page.Servers = []registry.Entry{}
				}
				return present.WriteJSON(cmd.OutOrStdout(), page)
			}
			if len(page.Servers) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "no server in %s matches %q\n", c.URL(), q)
				return nil
			}
			var rows [][]string
			for _, e := range page.Servers {
				rows = append(rows, []string{e.Server.Name, e.Server.Version, ways(e.Server), present.Truncate(e.Server.Description, 72)})
			}
			printTable(cmd.OutOrStdout(), []string{"NAME", "VERSION", "RUNS AS", "DESCRIPTION"}, rows)
			if page.NextCursor != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "more: mcpdeck registry search %s--cursor %s\n", cond(q != "", config.ShellQuote(q)+" ", ""), config.ShellQuote(page.NextCursor))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cursor, "cursor", "", "continue a listing from the cursor the previous page gave")
	cmd.Flags().IntVar(&limit, "limit", 0, "servers per page (the registry's default when 0, at most 100)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON")
	return cmd
}

// ways says how a server can run: "npm, remote".
func ways(s registry.ServerJSON) string {
	var out []string
	for _, p := range s.Packages {
		out = append(out, p.RegistryType)
	}
	if len(s.Remotes) > 0 {
		out = append(out, "remote")
	}
	if len(out) == 0 {
		return "—"
	}
	return strings.Join(compactStrings(out), ", ")
}

func compactStrings(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// splitVersion reads SERVER[@VERSION].
func splitVersion(s string) (name, version string) {
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func newRegistryShowCmd(url *string) *cobra.Command {
	var version string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show SERVER[@VERSION]",
		Short: "Show one server of the registry and the entry mcpdeck would add",
		Long: `show prints a server's description, repository, packages and remotes,
every value it asks for (required ones marked *, secrets marked secret),
and the entry "mcpdeck add --from-registry" would write. --json prints the
registry's answer as it came.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, v := splitVersion(args[0])
			if version != "" {
				v = version
			}
			c, ctx, done, err := openRegistry(cmd, *url)
			if err != nil {
				return err
			}
			defer done()
			e, raw, err := c.Get(ctx, name, v)
			if err != nil {
				return registryError(err)
			}
			if asJSON {
				return present.WriteJSON(cmd.OutOrStdout(), json.RawMessage(raw))
			}
			writeRegistryServer(cmd.OutOrStdout(), e)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "a version other than the latest")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the registry's answer as JSON")
	return cmd
}

// writeRegistryServer prints one server for a person. Everything comes
// from the registry: it is shown, never obeyed (present.Line).
func writeRegistryServer(w io.Writer, e registry.Entry) {
	s := e.Server
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-13s%s\n", name, present.Line(value))
		}
	}
	field("name", s.Name)
	field("title", s.Title)
	field("version", s.Version)
	if o := e.Meta.Official; o != nil {
		status := o.Status
		if o.StatusMessage != "" {
			status += ": " + o.StatusMessage
		}
		if !o.PublishedAt.IsZero() {
			status += ", published " + o.PublishedAt.Format("2006-01-02")
		}
		field("status", status)
	}
	field("description", s.Description)
	if s.Repository != nil {
		field("repository", s.Repository.URL)
	}
	field("website", s.WebsiteURL)
	for _, p := range s.Packages {
		fmt.Fprintln(w)
		spec := p.Identifier
		if p.Version != "" {
			spec += " " + p.Version
		}
		field("package", fmt.Sprintf("%s %s (%s)", p.RegistryType, spec, cond(p.Transport.Type == "", "stdio", p.Transport.Type)))
		writeNeeds(w, p)
	}
	for _, r := range s.Remotes {
		fmt.Fprintln(w)
		field("remote", r.Type+" "+r.URL)
		for _, h := range r.Headers {
			fmt.Fprintf(w, "  %s\n", present.Line(describeInput("header "+h.Name, h.Input)))
		}
	}
	inst, err := registry.Install(s, registry.Options{})
	fmt.Fprintln(w)
	if err != nil {
		fmt.Fprintf(w, "mcpdeck cannot add it: %s\n", present.Line(err.Error()))
		return
	}
	out, _ := json.MarshalIndent(inst.Entry, "  ", "  ")
	fmt.Fprintf(w, "mcpdeck add %s --from-registry %s writes (%s):\n  %s\n", registry.ShortName(s.Name), s.Name, present.Line(inst.Via), present.Clean(string(out)))
}

// writeNeeds lists what a package asks for.
func writeNeeds(w io.Writer, p registry.Package) {
	for _, a := range append(append([]registry.Argument{}, p.RuntimeArguments...), p.PackageArguments...) {
		if a.Value != "" && len(a.Variables) == 0 {
			continue // fixed: nothing to ask
		}
		label := "argument " + cmp.Or(a.ValueHint, a.Name)
		fmt.Fprintf(w, "  %s\n", present.Line(describeInput(label, a.Input)))
	}
	for _, kv := range p.EnvironmentVariables {
		fmt.Fprintf(w, "  %s\n", present.Line(describeInput("env "+kv.Name, kv.Input)))
	}
}

// describeInput is one declared value on a line: "env BRAVE_API_KEY *
// secret — Your API key for the service".
func describeInput(label string, in registry.Input) string {
	var tags []string
	if in.IsRequired {
		label += " *"
	}
	if in.IsSecret {
		tags = append(tags, "secret")
	}
	if in.Default != "" {
		tags = append(tags, "default "+in.Default)
	}
	if in.Value != "" {
		tags = append(tags, "= "+in.Value)
	}
	if len(in.Choices) > 0 {
		tags = append(tags, "one of "+strings.Join(in.Choices, ", "))
	}
	out := label
	if len(tags) > 0 {
		out += " (" + strings.Join(tags, "; ") + ")"
	}
	if in.Description != "" {
		out += " — " + in.Description
	}
	return out
}

// registryInstallFlags are add's --from-registry flags.
type registryInstallFlags struct {
	from, url, pkg string
	remote         bool
	inputs         []string
}

func addRegistryInstallFlags(cmd *cobra.Command, f *registryInstallFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from-registry", "", "install `SERVER[@VERSION]` of the MCP Registry")
	fl.StringVar(&f.url, "registry", "", "the registry's base URL (default $"+registry.EnvURL+", else "+registry.DefaultURL+")")
	fl.StringVar(&f.pkg, "package", "", "with --from-registry: the package to run (npm, pypi, oci, nuget) when the server publishes several")
	fl.BoolVar(&f.remote, "remote", false, "with --from-registry: use the server's remote instead of a package")
	fl.StringArrayVar(&f.inputs, "input", nil, "with --from-registry: a value the server asks for, as `NAME=VALUE` (an argument, a {variable}; --env and --header fill variables and headers)")
}

// install fetches the server and turns it into an entry; --env and
// --header give values too, and are added when the server does not
// declare them.
func (f *registryInstallFlags) install(cmd *cobra.Command, name string, env, headers config.Pairs, secretAs string) (registry.Installation, error) {
	server, version := splitVersion(f.from)
	c, ctx, done, err := openRegistry(cmd, f.url)
	if err != nil {
		return registry.Installation{}, err
	}
	defer done()
	e, _, err := c.Get(ctx, server, version)
	if err != nil {
		return registry.Installation{}, registryError(err)
	}
	if o := e.Meta.Official; o != nil && o.Status != "" && o.Status != "active" {
		warnf(cmd.ErrOrStderr(), "%s %s is %s in the registry%s", server, e.Server.Version, o.Status, cond(o.StatusMessage != "", ": "+o.StatusMessage, ""))
	}
	values := map[string]string{}
	for _, kv := range append(append(config.Pairs{}, env...), headers...) {
		values[kv.Name] = kv.Value
	}
	in, err := parsePairs(f.inputs, "=", "--input", "NAME=VALUE")
	if err != nil {
		return registry.Installation{}, err
	}
	for _, kv := range in {
		values[kv.Name] = kv.Value
	}
	how, err := config.ParseSecretStorage(secretAs)
	if err != nil {
		return registry.Installation{}, withCode(ExitUsage, err)
	}
	o := registry.Options{Name: name, Package: f.pkg, Remote: f.remote, Values: values, Secrets: how}
	if interactive(cmd) {
		o.Ask = func(n registry.Need) (string, bool) { return askNeed(cmd, n) }
	}
	inst, err := registry.Install(e.Server, o)
	if err != nil {
		return registry.Installation{}, registryError(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: %s %s from %s runs as %s\n", e.Server.Name, e.Server.Version, c.URL(), present.Line(inst.Via))
	declared := map[string]bool{}
	for _, n := range inst.Needs {
		declared[n.Key] = true
	}
	extend := func(field string, extra config.Pairs) {
		m, _ := inst.Entry.Map(field)
		added := false
		for _, kv := range extra {
			if !declared[kv.Name] {
				m.Set(kv.Name, kv.Value)
				added = true
			}
		}
		if added {
			inst.Entry.Set(field, m)
		}
	}
	if _, isRemote := inst.Entry.Get("url"); isRemote {
		extend("headers", headers)
	} else {
		extend("env", env)
	}
	return inst, nil
}

// askNeed asks a person at the terminal for one value the server needs;
// a secret is read without echo.
func askNeed(cmd *cobra.Command, n registry.Need) (string, bool) {
	q := n.Kind + " " + n.Key
	if n.Description != "" {
		q += " (" + n.Description + ")"
	}
	if len(n.Choices) > 0 {
		q += " [" + strings.Join(n.Choices, "/") + "]"
	}
	if n.IsSecret {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s (not echoed): ", present.Line(q))
		if f, ok := cmd.InOrStdin().(*os.File); ok {
			b, err := term.ReadPassword(f.Fd())
			fmt.Fprintln(cmd.ErrOrStderr())
			return string(b), err == nil && len(b) > 0
		}
		return "", false
	}
	v, _ := prompt(cmd, present.Line(q)+": ")
	return v, v != ""
}
