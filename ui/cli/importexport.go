package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime/gateway"
)

// import and export move servers between mcpdeck's files and the other
// clients' (config.Clients: Claude Desktop, Claude Code, Cursor, VS Code,
// Windsurf), in each one's spelling; export --gateway points a client at
// mcpdeck's gateway instead.

// pathEnv is where the clients' files are on this system.
func pathEnv() (config.PathEnv, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return config.PathEnv{}, withCode(ExitUsage, fmt.Errorf("finding the home directory: %w", err))
	}
	wd, err := os.Getwd()
	if err != nil {
		return config.PathEnv{}, withCode(ExitUsage, err)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	return config.PathEnv{GOOS: goruntime.GOOS, Home: home, ProjectDir: wd, AppData: os.Getenv("APPDATA"), XDGConfigHome: xdg}, nil
}

// clientFile reads CLIENT[:SCOPE] (or a file path) as a client's file.
func clientFile(spec, scope string) (configTarget, error) {
	id, s, _ := strings.Cut(spec, ":")
	if scope == "" {
		scope = s
	}
	c, err := config.ClientByID(id)
	if err != nil {
		if strings.ContainsAny(spec, `/\`) || strings.HasSuffix(spec, ".json") {
			path, err := filepath.Abs(spec)
			return targetOf(path), withCode(ExitUsage, err)
		}
		return configTarget{}, withCode(ExitUsage, err)
	}
	env, err := pathEnv()
	if err != nil {
		return configTarget{}, err
	}
	path, opts, err := c.Location(scope, env)
	if err != nil {
		return configTarget{}, withCode(ExitUsage, err)
	}
	return configTarget{path: path, opts: opts, client: &c}, nil
}

// batch writes several servers into one file: secrets stored as chosen
// (asked once for all), converted to the file's client, saved once.
type batch struct {
	cmd     *cobra.Command
	t       configTarget
	d       *config.Document
	c       config.Client
	replace bool
	sf      *secretFlags
	added   []string
	skipped []string
	notes   []config.Notice
	// from is the file the entries come from (import), named when one is
	// left out; "" for export, whose entries come from mcpdeck's files.
	from string
}

func newBatch(cmd *cobra.Command, t configTarget, replace bool, sf *secretFlags) (*batch, error) {
	d, c, err := openTarget(t)
	if err != nil {
		return nil, err
	}
	return &batch{cmd: cmd, t: t, d: d, c: c, replace: replace, sf: sf}, nil
}

// put writes the entries (mcpdeck's format), by name, in order; a server
// the file has already (without replace), or the client cannot take, is
// skipped and named.
func (b *batch) put(names []string, entries map[string]config.Entry) error {
	var secrets []string
	for _, n := range names {
		for _, s := range entries[n].Secrets(n) {
			secrets = append(secrets, n+": "+s.Field+"."+s.Name)
		}
	}
	how, err := b.sf.storage(b.cmd, "the servers", secrets)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, exists := b.d.Entry(n); exists && !b.replace {
			b.skipped = append(b.skipped, n)
			b.notes = append(b.notes, config.Notice{Server: n, Message: fmt.Sprintf("skipped: %s already defines it (give --replace to overwrite it, or remove it first)", b.t.path)})
			continue
		}
		if errs := b.d.CheckServer(n, entries[n]); len(errs) > 0 {
			// One server mcpdeck cannot take does not stop the others.
			b.skipped = append(b.skipped, n)
			for _, d := range errs {
				d.Server, d.Pos = "", config.Position{}
				msg := "not exported: " + d.String()
				if b.from != "" {
					msg = "not imported from " + b.from + ": " + d.String()
				}
				b.notes = append(b.notes, config.Notice{Server: n, Message: msg})
			}
			continue
		}
		notes, err := config.PutServer(b.d, b.c, n, entries[n], how, b.replace, nil)
		if err != nil {
			if errors.Is(err, config.ErrInvalid) || errors.Is(err, config.ErrExists) {
				return withCode(ExitUsage, err)
			}
			b.skipped = append(b.skipped, n)
			b.notes = append(b.notes, config.Notice{Message: "skipped " + err.Error()})
			continue
		}
		b.added = append(b.added, n)
		b.notes = append(b.notes, notes...)
	}
	return nil
}

// save writes the file and reports ("imported …"); with nothing written
// because of conflicts it is a usage error ("nothing to import").
func (b *batch) save(verb, done, from string) error {
	printNotices(b.cmd.ErrOrStderr(), b.notes)
	if len(b.added) == 0 {
		return withCode(ExitUsage, fmt.Errorf("nothing to %s: every server was skipped (%s)", verb, strings.Join(b.skipped, ", ")))
	}
	return saveDoc(b.cmd, b.d, fmt.Sprintf("%s %s%s into", done, quoteNames(b.added), from))
}

func newImportCmd() *cobra.Command {
	var from, scope string
	var replace bool
	var sf secretFlags
	cmd := &cobra.Command{
		Use:   "import --from CLIENT[:SCOPE]|FILE [NAME]...",
		Short: "Copy servers from another client's configuration into mcpdeck's",
		Long: `import copies servers (the named ones, else all) from another client's
file into mcpdeck's (--scope, default the user's mcpdeck/mcp.json),
converted: Windsurf's serverUrl becomes url, a VS Code ${input:…} (which
only VS Code can ask for) becomes an ${env:…} reference to set, fields
mcpdeck does not read are left out and named. A name mcpdeck's file
already has is skipped and named unless --replace. Plain-text secrets are
stored as --secret-as says (default: ${env:NAME} references).

CLIENT is claude-desktop, claude-code, cursor, vscode or windsurf, with
an optional :SCOPE (user, project, and local for claude-code); the files
are those in the table of the README ("Managing servers").`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return withCode(ExitUsage, errors.New("--from is required: a client (claude-desktop, claude-code, cursor, vscode, windsurf) or a file"))
			}
			src, err := clientFile(from, "")
			if err != nil {
				return err
			}
			if !fileExists(src.path) {
				return withCode(ExitUsage, fmt.Errorf("%s has no configuration here: %s does not exist", from, src.path))
			}
			sd, srcClient, err := openTarget(src)
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = sd.Names()
			}
			entries := map[string]config.Entry{}
			var notes []config.Notice
			var kept []string
			for _, n := range names {
				e, ok := sd.Entry(n)
				if !ok {
					return withCode(ExitUsage, fmt.Errorf("%s defines no server %q%s", src.path, n, didYouMean(n, sd.Names())))
				}
				if ownGateway(e) {
					// What export --gateway wrote: mcpdeck would serve itself.
					if len(args) > 0 {
						return withCode(ExitUsage, fmt.Errorf("%s's %q is mcpdeck's own gateway (written by mcpdeck export --gateway): mcpdeck cannot serve itself; import the servers it serves instead", src.path, n))
					}
					notes = append(notes, config.Notice{Server: n, Message: "skipped: it is mcpdeck's own gateway (written by mcpdeck export --gateway)"})
					continue
				}
				kept = append(kept, n)
				var more []config.Notice
				entries[n], more = srcClient.Import(n, e)
				notes = append(notes, more...)
			}
			if len(names) == 0 {
				return withCode(ExitUsage, fmt.Errorf("%s defines no servers", src.path))
			}
			if len(kept) == 0 {
				return withCode(ExitUsage, fmt.Errorf("%s defines no servers but mcpdeck's own gateway", src.path))
			}
			names = kept
			t, err := addTarget(cmd, scope)
			if err != nil {
				return err
			}
			if t.path == src.path {
				return withCode(ExitUsage, fmt.Errorf("%s is both where the servers come from and where they would go", src.path))
			}
			b, err := newBatch(cmd, t, replace, &sf)
			if err != nil {
				return err
			}
			b.notes, b.from = notes, src.path
			if err := b.put(names, entries); err != nil {
				return err
			}
			return b.save("import", "imported", " from "+src.path)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the client (claude-desktop, claude-code, cursor, vscode, windsurf; :SCOPE picks its user, project or local file) or a `FILE`")
	cmd.Flags().StringVar(&scope, "scope", "", "mcpdeck's file to import into: "+scopeHelp)
	cmd.Flags().BoolVar(&replace, "replace", false, "overwrite servers mcpdeck's file already has")
	addSecretFlags(cmd, &sf)
	return cmd
}

// ownGateway reports whether an entry runs or reaches mcpdeck's own
// gateway, as export --gateway writes it: the mcpdeck command with the
// gateway subcommand, or a URL whose headers send the gateway's token
// variable.
func ownGateway(e config.Entry) bool {
	if cmd, ok := e.String("command"); ok {
		base := strings.TrimSuffix(filepath.Base(cmd), ".exe")
		args, _ := e.Strings("args")
		return base == "mcpdeck" && slices.Contains(args, "gateway")
	}
	headers, _ := e.Map("headers")
	return slices.ContainsFunc(headers, func(h config.Pair) bool { return strings.Contains(h.Value, gateway.EnvToken) })
}

// exportFlags are export's flags.
type exportFlags struct {
	to, scope, name, command, http, tokenEnv string
	replace, gw                              bool
	sf                                       secretFlags
}

func newExportCmd() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export --to CLIENT [--scope SCOPE] [NAME]... | --to CLIENT --gateway [--http URL]",
		Short: "Write mcpdeck's servers, or one entry for mcpdeck's gateway, into another client's configuration",
		Long: `export writes servers of mcpdeck's configuration (the named ones, else
every one) into another client's file, in that client's spelling: "type"
as it wants it, its URL field (Windsurf's serverUrl), its variable syntax
(${VAR} for Claude Code, ${env:VAR} for VS Code, Cursor and Windsurf),
and without the fields it does not read (named). Claude Desktop's file
runs local commands only: a remote server goes there with --gateway.

--gateway writes one entry instead (named mcpdeck, or --name) that points
the client at mcpdeck's gateway: over stdio it runs
"mcpdeck --config FILE gateway" with mcpdeck's own configuration (so the
gateway never reads the client's project file, which lists the gateway
itself); with --http URL it connects to a running "mcpdeck gateway --http
ADDR", its token a reference the client expands (VS Code asks for it once)
— the token itself is never written. Every server the gateway serves is
then switched from mcpdeck.

CLIENT is claude-desktop, claude-code, cursor, vscode or windsurf; --scope
picks its user (default), project or (claude-code) local file.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runExport(cmd, args, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.to, "to", "", "the client to write to: claude-desktop, claude-code, cursor, vscode or windsurf")
	fl.StringVar(&f.scope, "scope", "", "the client's file: user (default), project, or local (claude-code)")
	fl.BoolVar(&f.replace, "replace", false, "overwrite entries of the same name in the client's file")
	fl.BoolVar(&f.gw, "gateway", false, "write one entry pointing the client at mcpdeck's gateway")
	fl.StringVar(&f.name, "name", "mcpdeck", "with --gateway: the entry's name")
	fl.StringVar(&f.command, "command", "", "with --gateway: mcpdeck's executable as the client should run it (default: this mcpdeck, as found on PATH)")
	fl.StringVar(&f.http, "http", "", "with --gateway: the `URL` of an HTTP gateway (mcpdeck gateway --http ADDR), e.g. http://127.0.0.1:8765/mcp")
	fl.StringVar(&f.tokenEnv, "token-env", gateway.EnvToken, "with --gateway --http: the environment variable the client reads the token from")
	addSecretFlags(cmd, &f.sf)
	return cmd
}

func runExport(cmd *cobra.Command, args []string, f *exportFlags) error {
	if f.to == "" {
		return withCode(ExitUsage, errors.New("--to is required: claude-desktop, claude-code, cursor, vscode or windsurf"))
	}
	client, err := config.ClientByID(f.to)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	t, err := clientFile(f.to, f.scope)
	if err != nil {
		return err
	}
	if f.gw {
		if len(args) > 0 {
			return withCode(ExitUsage, errors.New("--gateway writes one entry for the whole gateway: name no servers (the gateway's own configuration chooses them)"))
		}
		return exportGateway(cmd, t, f)
	}
	cfg, err := loadRunnable(configFiles(cmd))
	if err != nil {
		return err
	}
	names := args
	if len(names) == 0 {
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
	}
	docs := map[string]*config.Document{}
	entries := map[string]config.Entry{}
	var notes []config.Notice
	var exported []string
	for _, n := range names {
		s, ok := cfg.Server(n)
		if !ok {
			return withCode(ExitUsage, fmt.Errorf("no server %q in %s%s", n, sourcesOf(cfg), didYouMean(n, serverNames(cfg))))
		}
		if s.Scope == config.ScopeDefault {
			notes = append(notes, config.Notice{Server: n, Message: "skipped: it is mcpdeck's built-in demo, in no file"})
			continue
		}
		if !s.Enabled && len(args) == 0 && !slices.Contains(client.Fields, "disabled") {
			// The client could not write it switched off: it would run there.
			notes = append(notes, config.Notice{Server: n, Message: fmt.Sprintf("skipped: it is disabled in mcpdeck, and %s has no way to write it disabled; name it to export it anyway (enabled there)", client.Name)})
			continue
		}
		d, ok := docs[s.Source]
		if !ok {
			if d, _, err = openTarget(targetOf(s.Source)); err != nil {
				return err
			}
			docs[s.Source] = d
		}
		e, ok := d.Entry(n)
		if !ok {
			return withCode(ExitUsage, fmt.Errorf("%s changed: it no longer defines %q; run again", s.Source, n))
		}
		var more []config.Notice
		e, more = config.ClientOfFile(s.Source, d.Key()).Import(n, e)
		if !s.Enabled && slices.Contains(client.Fields, "disabled") {
			// Off in mcpdeck however its file says it ("disabledServers",
			// "enabled": false): the client's one way is "disabled".
			e.Delete("enabled")
			e.Set("disabled", true)
		}
		entries[n] = e
		notes = append(notes, more...)
		exported = append(exported, n)
	}
	if len(exported) == 0 {
		printNotices(cmd.ErrOrStderr(), notes)
		return withCode(ExitUsage, errors.New("no server to export"))
	}
	b, err := newBatch(cmd, t, f.replace, &f.sf)
	if err != nil {
		return err
	}
	b.notes = notes
	if err := b.put(exported, entries); err != nil {
		return err
	}
	return b.save("export", "exported", "")
}

func serverNames(cfg *config.Config) []string {
	var out []string
	for _, s := range cfg.Servers {
		out = append(out, s.Name)
	}
	return out
}

// exportGateway writes the one entry that points the client at mcpdeck's
// gateway.
func exportGateway(cmd *cobra.Command, t configTarget, f *exportFlags) error {
	g := config.GatewayTarget{URL: f.http, TokenEnv: f.tokenEnv}
	if f.http == "" {
		exe, err := mcpdeckCommand(cmd, f.command)
		if err != nil {
			return err
		}
		g.Command = exe
		files := configFiles(cmd)
		if len(files) == 0 {
			user, err := config.UserFile()
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if !fileExists(user) {
				return withCode(ExitUsage, fmt.Errorf("mcpdeck has no configuration of its own yet (%s): add servers with mcpdeck add or mcpdeck import first, or name the gateway's file with --config", user))
			}
			files = []string{user}
		}
		for _, file := range files {
			abs, err := filepath.Abs(file)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if abs == t.path {
				return withCode(ExitUsage, fmt.Errorf("the gateway would read %s, the file that lists the gateway itself; give it its own file with --config", abs))
			}
			g.Config = append(g.Config, abs)
		}
	}
	c := *t.client
	e, inputs, err := c.GatewayEntry(g)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	d, _, err := openTarget(t)
	if err != nil {
		return err
	}
	if c.Inputs {
		if err := d.AddInputs(inputs); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	_, exists := d.Entry(f.name)
	switch {
	case exists && !f.replace:
		return withCode(ExitUsage, fmt.Errorf("%w: %s already has %q; give --replace to overwrite it, or --name to add another", config.ErrExists, t.path, f.name))
	case exists:
		err = d.Update(f.name, e, config.LaunchFields)
	default:
		err = d.Add(f.name, e)
	}
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := saveDoc(cmd, d, fmt.Sprintf("%s runs mcpdeck's gateway as %q: written to", c.Name, f.name)); err != nil {
		return err
	}
	if f.http != "" && !c.Inputs {
		warnf(cmd.ErrOrStderr(), "%s sends the token from %s: set it to the token of mcpdeck gateway --http (%s=… mcpdeck gateway --http ADDR)", c.Name, f.tokenEnv, gateway.EnvToken)
	}
	return nil
}

// mcpdeckCommand is mcpdeck's executable as a client should run it: given,
// else "mcpdeck" when that is what PATH finds, else this executable's
// full path.
func mcpdeckCommand(cmd *cobra.Command, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", withCode(ExitUsage, fmt.Errorf("finding mcpdeck's executable: %w; give --command", err))
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath("mcpdeck"); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil && real == exe {
			return "mcpdeck", nil
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		warnf(cmd.ErrOrStderr(), "this mcpdeck is a temporary build (go run); the client would run %s, which goes away: give --command with the installed mcpdeck", exe)
	}
	return exe, nil
}
