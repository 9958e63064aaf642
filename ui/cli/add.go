package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/config"
)

// The commands that edit configuration files: add, add-json, remove,
// enable and disable (edit is in edit.go). Each patches the file in place
// (config.Document): comments, order and formatting stay, the file's own
// format (mcpServers or servers) is kept, and the write is validated,
// atomic and refused if the file changed meanwhile.

// addFlags are add's flags.
type addFlags struct {
	scope, url, transport, envFile, cwd string
	headers, env                        []string
	oauthID, oauthSecret, oauthScopes   string
	oauthPort                           int
	replace, disabled                   bool
	secrets                             secretFlags
	reg                                 registryInstallFlags
}

func newAddCmd() *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add NAME (-- COMMAND [ARGS]... | --url URL | --from-registry SERVER[@VERSION])",
		Short: "Add a server to a configuration file (comments and formatting kept)",
		Long: `add writes one server into a configuration file: a local command
(everything after --), a remote server (--url), or a server of the MCP
Registry (--from-registry, see "mcpdeck registry").

The file is the user's mcpdeck/mcp.json unless --scope (user, project or
a FILE) or a single --config names another. It is patched in place:
comments, order and formatting stay, a VS Code file keeps its "servers"
format, and the write is validated, atomic, keeps the file's mode and is
refused when the file changed meanwhile.

A secret given on the command line (an --env value whose name or shape is
a credential's, an Authorization or API-key --header) is not written as
typed unless you choose so: --secret-as env (the default) writes an
${env:NAME} reference and names the variable to set, input a VS Code
${input:…} prompt, value the value with a warning. On a terminal you are
asked when --secret-as is not given.

Examples:
  mcpdeck add everything -- npx -y @modelcontextprotocol/server-everything
  mcpdeck add github --env GITHUB_TOKEN=ghp_… -- docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server
  mcpdeck add sentry --url https://mcp.sentry.dev/mcp --header 'Authorization: Bearer sntrys_…'
  mcpdeck add time --from-registry io.github.modelcontextprotocol/server-time`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runAdd(cmd, args, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scope, "scope", "", scopeHelp)
	fl.StringVar(&f.url, "url", "", "a remote server at `URL`")
	fl.StringArrayVar(&f.headers, "header", nil, "a request header of the remote server, as 'Name: value' (repeatable)")
	fl.StringVar(&f.transport, "transport", "", "http (Streamable HTTP) or sse for --url (default: http, falling back to sse); stdio for a command")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "an environment variable of the command, as `K=V` (repeatable)")
	fl.StringVar(&f.envFile, "env-file", "", "a file of KEY=VALUE lines the command's environment is read from")
	fl.StringVar(&f.cwd, "cwd", "", "the working directory of the command")
	fl.StringVar(&f.oauthID, "oauth-client-id", "", "a pre-registered OAuth client id of the remote server")
	fl.StringVar(&f.oauthSecret, "oauth-client-secret", "", "its client secret (stored as --secret-as says)")
	fl.StringVar(&f.oauthScopes, "oauth-scopes", "", "OAuth scopes to ask for, space-separated")
	fl.IntVar(&f.oauthPort, "oauth-redirect-port", 0, "a fixed port for the OAuth redirect listener")
	fl.BoolVar(&f.replace, "replace", false, "change the definition of a server that is already there (its other settings stay)")
	fl.BoolVar(&f.disabled, "disabled", false, `add it switched off ("disabled": true)`)
	addSecretFlags(cmd, &f.secrets)
	addRegistryInstallFlags(cmd, &f.reg)
	return cmd
}

func runAdd(cmd *cobra.Command, args []string, f *addFlags) error {
	name, command := args[0], args[1:]
	sources := 0
	for _, given := range []bool{len(command) > 0, f.url != "", f.reg.from != ""} {
		if given {
			sources++
		}
	}
	switch {
	case sources == 0:
		return withCode(ExitUsage, fmt.Errorf("give %q a command after --, --url URL or --from-registry SERVER: mcpdeck add %s -- npx -y PACKAGE", name, name))
	case sources > 1:
		return withCode(ExitUsage, errors.New("give one of a command after --, --url and --from-registry"))
	case f.url == "" && f.reg.from == "" && (len(f.headers) > 0 || f.oauthID != "" || f.oauthSecret != "" || f.oauthScopes != "" || f.oauthPort != 0):
		return withCode(ExitUsage, errors.New("--header and the --oauth flags go with --url"))
	case f.url != "" && (len(f.env) > 0 || f.envFile != "" || f.cwd != ""):
		return withCode(ExitUsage, errors.New("--env, --env-file and --cwd go with a command; a remote server takes --header"))
	}
	t, err := addTarget(cmd, f.scope)
	if err != nil {
		return err
	}
	env, err := parsePairs(f.env, "=", "--env", "K=V")
	if err != nil {
		return err
	}
	headers, err := parseHeaders(f.headers)
	if err != nil {
		return err
	}
	var e config.Entry
	var inputs []config.Input
	var notes []config.Notice
	switch {
	case f.reg.from != "":
		inst, err := f.reg.install(cmd, name, env, headers, f.secrets.as)
		if err != nil {
			return err
		}
		e, inputs, notes = inst.Entry, inst.Inputs, inst.Notices
	case f.url != "":
		tr, err := remoteTransport(f.transport)
		if err != nil {
			return err
		}
		e = config.RemoteEntry(tr, f.url, headers)
		if err := f.addOAuth(cmd, name, &e, fileClient(t), &inputs, &notes); err != nil {
			return err
		}
	default:
		if f.transport != "" && f.transport != "stdio" {
			return withCode(ExitUsage, fmt.Errorf("--transport %q is for --url; a command runs over stdio", f.transport))
		}
		e = config.StdioEntry(command[0], command[1:], env, f.envFile, f.cwd)
	}
	if f.disabled {
		e.Set("disabled", true)
	}
	return writeServer(cmd, t, name, e, &f.secrets, f.replace, inputs, notes)
}

// fileClient is the client whose format t's file is in.
func fileClient(t configTarget) config.Client {
	if t.client != nil {
		return *t.client
	}
	key := "mcpServers"
	if filepath.Base(filepath.Dir(t.path)) == ".vscode" {
		key = "servers"
	}
	return config.ClientOfFile(t.path, key)
}

// remoteTransport reads --transport for --url.
func remoteTransport(s string) (config.Transport, error) {
	switch s {
	case "":
		return "", nil
	case "http", "streamable-http":
		return config.TransportHTTP, nil
	case "sse":
		return config.TransportSSE, nil
	}
	return "", withCode(ExitUsage, fmt.Errorf("--transport %q: use http or sse with --url", s))
}

// addOAuth writes the --oauth flags as the "oauth" block.
func (f *addFlags) addOAuth(cmd *cobra.Command, name string, e *config.Entry, target config.Client, inputs *[]config.Input, notes *[]config.Notice) error {
	if f.oauthID == "" && f.oauthSecret == "" && f.oauthScopes == "" && f.oauthPort == 0 {
		return nil
	}
	o := config.Entry{}
	if f.oauthID != "" {
		o.Set("clientId", f.oauthID)
	}
	if f.oauthSecret != "" {
		how, err := f.secrets.storage(cmd, name, []string{"oauth.clientSecret"})
		if err != nil {
			return err
		}
		ref, in, n, err := config.SecretRef(name, "oauth.clientSecret", config.EnvName(name+"_CLIENT_SECRET"), f.oauthSecret, how, target)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		if in != nil {
			*inputs = append(*inputs, *in)
		}
		*notes = append(*notes, n...)
		o.Set("clientSecret", ref)
		f.secrets.as = string(how) // asked once
	}
	if f.oauthScopes != "" {
		o.Set("scopes", f.oauthScopes)
	}
	if f.oauthPort != 0 {
		o.Set("redirectPort", f.oauthPort)
	}
	e.Set("oauth", o)
	return nil
}

// parsePairs reads repeated K=V or 'K: V' flags in order.
func parsePairs(list []string, sep, flag, shape string) (config.Pairs, error) {
	var out config.Pairs
	for _, item := range list {
		k, v, ok := strings.Cut(item, sep)
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, withCode(ExitUsage, fmt.Errorf("%s %q: write it as %s", flag, item, shape))
		}
		out.Set(k, v)
	}
	return out, nil
}

// parseHeaders reads --header flags ('Name: value') for every command that
// takes them, ad-hoc targets and add alike: a header with no credential
// where one belongs (config.MissingCredential: "Bearer " from an empty
// variable) is refused before anything is sent or written.
func parseHeaders(list []string) (config.Pairs, error) {
	headers, err := parsePairs(list, ":", "--header", "'Name: value'")
	if err != nil {
		return nil, err
	}
	for _, h := range headers {
		if msg := config.MissingCredential(h.Name, h.Value); msg != "" {
			return nil, withCode(ExitUsage, fmt.Errorf("--header %q: %s; give the credential, or leave the header out", h.Name+": "+h.Value, msg))
		}
	}
	return headers, nil
}

func newAddJSONCmd() *cobra.Command {
	var scope string
	var replace bool
	var sf secretFlags
	cmd := &cobra.Command{
		Use:   "add-json [NAME] JSON|-",
		Short: "Add a server from its JSON definition, as another client's documentation prints it",
		Long: `add-json adds a server from its JSON definition ("-" reads it from
stdin): the entry itself ({"command": "npx", "args": [...]}, {"type":
"http", "url": ...}, Windsurf's {"serverUrl": ...}), a whole snippet with
one server ({"mcpServers": {"name": {...}}} or VS Code's {"servers":
{...}}), or VS Code's --add-mcp form ({"name": "x", "command": ...}). NAME
may be left out when the JSON names the server. The file, the format kept
and the secrets are handled as by add.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, text := "", args[len(args)-1]
			if len(args) == 2 {
				name = args[0]
			}
			if text == "-" {
				data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<20))
				if err != nil {
					return withCode(ExitUsage, err)
				}
				text = string(data)
			}
			n, e, err := config.ParseServerJSON(name, []byte(text))
			if err != nil {
				return withCode(ExitUsage, err)
			}
			t, err := addTarget(cmd, scope)
			if err != nil {
				return err
			}
			return writeServer(cmd, t, n, e, &sf, replace, nil, nil)
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", scopeHelp)
	cmd.Flags().BoolVar(&replace, "replace", false, "change the definition of a server that is already there")
	addSecretFlags(cmd, &sf)
	return cmd
}

func newRemoveCmd() *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "remove NAME...",
		Short: "Remove servers from the configuration file that defines them",
		Long: `remove deletes each named server from the file whose definition is in
effect (or from the file --scope or --config names), with the comments
that belong to it; the rest of the file stays as it was.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			return eachServer(cmd, scope, args, func(d *config.Document, name string) (string, error) {
				return fmt.Sprintf("removed %q from", name), d.Remove(name)
			})
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", scopeHelp)
	return cmd
}

func newEnableCmd(on bool) *cobra.Command {
	var scope string
	verb, field := "enable", `removes "disabled": true (or sets "enabled": true)`
	if !on {
		verb, field = "disable", `sets "disabled": true (or "enabled": false where the file uses that field)`
	}
	cmd := &cobra.Command{
		Use:   verb + " NAME...",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " servers in the configuration file that defines them",
		Long: verb + ` switches servers with the configuration's own field: it ` + field + `.
A disabled server is listed but not started until enabled (or switched
on for one session with space in the TUI).`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			return eachServer(cmd, scope, args, func(d *config.Document, name string) (string, error) {
				return fmt.Sprintf("%sd %q in", verb, name), d.SetEnabled(name, on)
			})
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", scopeHelp)
	return cmd
}

// eachServer changes each named server in the file that defines it (or
// the one --scope names) with change, which says what it did, and saves.
func eachServer(cmd *cobra.Command, scope string, names []string, change func(*config.Document, string) (string, error)) error {
	for _, name := range names {
		t, err := serverTarget(cmd, scope, name)
		if err != nil {
			return err
		}
		d, _, err := openTarget(t)
		if err != nil {
			return err
		}
		done, err := change(d, name)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		if !d.Changed() {
			fmt.Fprintf(cmd.OutOrStdout(), "nothing to change: %q in %s is already so\n", name, t.path)
			continue
		}
		if err := saveDoc(cmd, d, done); err != nil {
			return err
		}
	}
	return nil
}

// quoteNames quotes names for a message.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
