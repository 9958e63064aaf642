package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui"
	"mcpdeck/ui/present"
)

// Which file an edit goes to (--scope, --config, the user's file, the
// project's, the file that defines a server), saving it, and asking how
// a secret is stored: what add, add-json, remove, enable, disable, edit,
// import, export and the TUI's add form share.

const scopeHelp = "the file to change: user ($XDG_CONFIG_HOME/mcpdeck/mcp.json), project (this directory's .mcp.json, or the first of mcp.json, .vscode/mcp.json, .cursor/mcp.json that exists), or a FILE path"

// configTarget is a file an edit goes to: its path, and for a client's
// own file (import, export) where its servers are.
type configTarget struct {
	path   string
	client *config.Client    // set for a client's file; else the file's own
	opts   config.DocOptions // with client
}

// targetOf is a configuration file named by its path.
func targetOf(path string) configTarget { return configTarget{path: path} }

// projectFile reports whether path is one of this directory's project
// files (config.ProjectFiles), whose servers need approval.
func projectFile(path string) (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for _, name := range config.ProjectFiles {
		if p := filepath.Join(wd, name); p == path {
			return p, true
		}
	}
	return "", false
}

// scopeFile is the file --scope names, or "" when none was given: then
// the only --config file, when one was given.
func scopeFile(cmd *cobra.Command, scope string) (string, error) {
	switch scope {
	case "":
		files := configFiles(cmd)
		switch len(files) {
		case 0:
			return "", nil
		case 1:
			return filepath.Abs(files[0])
		}
		return "", withCode(ExitUsage, fmt.Errorf("%d --config files given; name the one to change with --scope FILE", len(files)))
	case "user":
		p, err := config.UserFile()
		return p, withCode(ExitUsage, err)
	case "project":
		wd, err := os.Getwd()
		if err != nil {
			return "", withCode(ExitUsage, err)
		}
		for _, name := range config.ProjectFiles {
			if p := filepath.Join(wd, name); fileExists(p) {
				return p, nil
			}
		}
		return filepath.Join(wd, ".mcp.json"), nil
	case "local":
		return "", withCode(ExitUsage, errors.New("--scope local is Claude Code's per-project section of ~/.claude.json; mcpdeck reads user and project files: use --scope user or --scope project (export --to claude-code --scope local writes Claude Code's)"))
	}
	if !strings.ContainsAny(scope, `/\`) && !strings.HasSuffix(scope, ".json") {
		return "", withCode(ExitUsage, fmt.Errorf("--scope %q: use user, project or a file path such as ./mcp.json", scope))
	}
	return filepath.Abs(scope)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// addTarget is the file a new server goes to: --scope, else the only
// --config file, else the user's file.
func addTarget(cmd *cobra.Command, scope string) (configTarget, error) {
	path, err := scopeFile(cmd, scope)
	if err != nil {
		return configTarget{}, err
	}
	if path == "" {
		if path, err = config.UserFile(); err != nil {
			return configTarget{}, withCode(ExitUsage, err)
		}
	}
	return targetOf(path), nil
}

// serverTarget is the file that defines name: the one --scope or --config
// names, else the file whose definition is in effect.
func serverTarget(cmd *cobra.Command, scope, name string) (configTarget, error) {
	path, err := scopeFile(cmd, scope)
	if err != nil {
		return configTarget{}, err
	}
	if path != "" {
		return targetOf(path), nil
	}
	cfg, err := load(nil, true)
	var errs config.Errors
	if err != nil && !errors.As(err, &errs) {
		return configTarget{}, withCode(ExitUsage, err)
	}
	var defs []string
	for _, f := range cfg.Files {
		if slices.Contains(f.Servers, name) && f.Scope != config.ScopeDefault {
			defs = append(defs, f.Path)
		}
	}
	if len(defs) == 0 {
		var all []string
		for _, f := range cfg.Files {
			all = append(all, f.Servers...)
		}
		return configTarget{}, withCode(ExitUsage, fmt.Errorf("no server %q in %s%s; name the file with --scope", name, sourcesOf(cfg), didYouMean(name, all)))
	}
	return targetOf(defs[0]), nil
}

// openTarget opens t for editing, and says whose format it is in.
func openTarget(t configTarget) (*config.Document, config.Client, error) {
	if t.client != nil {
		d, err := config.OpenDocument(t.path, t.opts)
		return d, *t.client, withCode(ExitUsage, err)
	}
	_, shared := projectFile(t.path)
	d, c, err := config.OpenServerFile(t.path, shared)
	return d, c, withCode(ExitUsage, err)
}

// saveDoc writes d and says what happened. A project file this command
// created is approved, and one approved at the content it had keeps its
// approval: the content is the person's own (config.Saved.Approval).
func saveDoc(cmd *cobra.Command, d *config.Document, done string) error {
	saved, err := d.Save()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", done, saved.Path)
	if p, ok := projectFile(saved.Path); ok {
		if ts, err := config.OpenTrustStore(""); err == nil {
			if f, ok := saved.Approval(p, ts.Trusted); ok && ts.Trust(f) == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: %s %s\n", p, cond(saved.Created, "is approved: this command created it",
					"stays approved: its approved content changed only by this command"))
			}
		}
	}
	for _, v := range saved.Unset {
		warnf(cmd.ErrOrStderr(), "%s is not set in this environment; set it before the server starts", v)
	}
	return nil
}

// printNotices writes what a person should know, on stderr.
func printNotices(w io.Writer, notes []config.Notice) {
	for _, n := range notes {
		warnf(w, "%s", n)
	}
}

// secretFlags choose how secrets given on the command line are written.
type secretFlags struct{ as string }

func addSecretFlags(cmd *cobra.Command, f *secretFlags) {
	cmd.Flags().StringVar(&f.as, "secret-as", "", "how a secret (a token in --env or --header) is written: env (an ${env:NAME} reference; the default), input (a VS Code prompt) or value (as given, with a warning); asked on a terminal when not given")
}

// storage is the storage --secret-as chose; on a terminal without the
// flag the person is asked, when there is a secret.
func (f *secretFlags) storage(cmd *cobra.Command, server string, secrets []string) (config.SecretStorage, error) {
	if f.as != "" || len(secrets) == 0 || !interactive(cmd) {
		st, err := config.ParseSecretStorage(f.as)
		return st, withCode(ExitUsage, err)
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "%s holds %s: %s.\n", server, present.Count(len(secrets), "secret", "secrets"), strings.Join(secrets, ", "))
	fmt.Fprintln(w, "Store it as  [e] an ${env:NAME} reference (set the variable yourself; the default)")
	fmt.Fprintln(w, "             [i] a VS Code input (VS Code asks for it; mcpdeck cannot)")
	fmt.Fprintln(w, "             [v] the value, in plain text in the file")
	choice, _ := prompt(cmd, "Choice [e/i/v]: ")
	switch strings.ToLower(choice) {
	case "i", "input":
		return config.SecretAsInput, nil
	case "v", "value":
		return config.SecretAsValue, nil
	}
	return config.SecretAsEnv, nil
}

// interactive reports whether a person is at the terminal to answer.
func interactive(cmd *cobra.Command) bool {
	in, ok := cmd.InOrStdin().(*os.File)
	return ok && isTerminal(in) && isTerminal(cmd.ErrOrStderr())
}

// prompt asks a question on stderr and reads one line of the answer, a
// byte at a time so the next question finds the next line. ok is false
// when stdin ended before a line did: nobody is there to answer.
func prompt(cmd *cobra.Command, question string) (answer string, ok bool) {
	fmt.Fprint(cmd.ErrOrStderr(), question)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := cmd.InOrStdin().Read(b)
		if n == 1 && b[0] == '\n' {
			return strings.TrimSpace(string(line)), true
		}
		if n == 1 {
			line = append(line, b[0])
		}
		if err != nil {
			return strings.TrimSpace(string(line)), len(line) > 0
		}
	}
}

// writeServer writes the entry e (mcpdeck's format) as server name into
// t: secrets stored as chosen, converted to the file's client, added — or,
// with replace, its launch fields updated — and saved.
func writeServer(cmd *cobra.Command, t configTarget, name string, e config.Entry, sf *secretFlags, replace bool, inputs []config.Input, notes []config.Notice) error {
	var names []string
	for _, s := range e.Secrets(name) {
		names = append(names, s.Field+"."+s.Name)
	}
	how, err := sf.storage(cmd, name, names)
	if err != nil {
		return err
	}
	d, c, err := openTarget(t)
	if err != nil {
		return err
	}
	_, exists := d.Entry(name)
	more, err := config.PutServer(d, c, name, e, how, replace, inputs)
	if err != nil {
		if errors.Is(err, config.ErrExists) {
			err = fmt.Errorf("%w (give --replace to change its definition)", err)
		}
		return withCode(ExitUsage, err)
	}
	printNotices(cmd.ErrOrStderr(), append(notes, more...))
	return saveDoc(cmd, d, cond(exists, fmt.Sprintf("replaced %q in", name), fmt.Sprintf("added %q to", name)))
}

// manageFiles are the files the TUI's add form offers, the default
// first: the --config files when given, else the user's file, then this
// project's.
func manageFiles(cmd *cobra.Command) []ui.ManageFile {
	var out []ui.ManageFile
	for _, f := range configFiles(cmd) {
		if abs, err := filepath.Abs(f); err == nil {
			_, shared := projectFile(abs)
			out = append(out, ui.ManageFile{Label: "--config", Path: abs, Shared: shared})
		}
	}
	if len(out) > 0 {
		return out
	}
	if user, err := config.UserFile(); err == nil {
		out = append(out, ui.ManageFile{Label: "user", Path: user})
	}
	if project, err := scopeFile(cmd, "project"); err == nil {
		out = append(out, ui.ManageFile{Label: "project", Path: project, Shared: true})
	}
	return out
}

// tryServer runs a copy of srv alone, as the session would (opts), until
// it is ready or failed, says how it went, and stops it. It declares
// elicitation and sampling as the TUI's session does once its dialogs are
// attached (ui.Attach), so a server that lists some tools only to such a
// client (server-everything) counts the tools the TUI will show; whatever
// the copy asks is declined, since no person is there to answer.
func tryServer(ctx context.Context, srv config.Server, opts runtime.Options) (string, error) {
	opts.Config = &config.Config{Servers: []config.Server{srv}}
	opts.Telemetry = nil // a try is not the session's
	opts.Elicitor, opts.Sampler = runtime.DeclineElicitor{}, runtime.DeclineSampler{}
	rt := runtime.New(opts)
	defer shutdownRuntime(rt)
	if err := rt.SetEnabled(ctx, true); err != nil {
		return "", err
	}
	snap := rt.Snapshot()
	if err := serverFailure(snap, srv.Name); err != nil {
		return "", err
	}
	v, _ := snap.Server(srv.Name)
	info := v.ServerInfo.Name
	if v.ServerInfo.Version != "" {
		info += " " + v.ServerInfo.Version
	}
	return fmt.Sprintf("%s is %s: %s, %s, %s %s", srv.Name, v.State, info,
		present.Count(len(v.Tools), "tool", "tools"), v.Era, v.ProtocolVersion), nil
}
