package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/assets"
	"mcpdeck/config"
	"mcpdeck/ui/present"
)

// configFlag is the root command's repeatable persistent --config flag.
const configFlag = "config"

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show or validate the resolved configuration",
		Long: `Show or validate the configuration mcpdeck resolves from mcp.json files.

Files: each --config FILE; else the project's .mcp.json, mcp.json,
.vscode/mcp.json and .cursor/mcp.json, then $XDG_CONFIG_HOME/mcpdeck/mcp.json;
else the built-in default. Both the "mcpServers" format (Claude Desktop,
Claude Code, Cursor) and the "servers" format (VS Code) are read as they are.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newConfigShowCmd(), newConfigValidateCmd())
	return cmd
}

func newConfigShowCmd() *cobra.Command {
	var asJSON, reveal, trust bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the resolved servers (secrets redacted)",
		Long: `Print every resolved server with its source file, scope, transport,
command or url, env and headers (values redacted unless --reveal),
timeouts, warnings and the definitions shadowed by a nearer file, then
the gateway block when there is one (its policy as resolved, and where the
token comes from: the token itself is never printed, not even with
--reveal). With --trust-project, approve the project files whose servers have not
been approved yet (servers in project files start only once approved).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A server whose own definition is broken is shown, marked with
			// its problems, as the runtime keeps it: the others still start.
			load := func() (*config.Config, error) { return loadRunnable(configFiles(cmd)) }
			if trust {
				load = func() (*config.Config, error) { return loadApproved(cmd, true) }
			}
			cfg, err := load()
			if err != nil {
				return err
			}
			approvals := approvalStates(cfg)
			if asJSON {
				return present.WriteJSON(cmd.OutOrStdout(), showJSON(cfg, approvals, reveal))
			}
			writeShow(cmd.OutOrStdout(), cfg, approvals, reveal)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON")
	cmd.Flags().BoolVar(&reveal, "reveal", false, "print env and header values instead of redacting them")
	cmd.Flags().BoolVar(&trust, "trust-project", false, "approve this project's mcp.json files")
	return cmd
}

func newConfigValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [FILE]...",
		Short: "Check the configuration and list every problem",
		Long: `Check the configuration (the given FILEs, else what mcpdeck would
discover) and list every problem with file:line:column, server and field.
Exit status 0 when it is valid, 2 when it is not.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := args
			if len(files) == 0 {
				files = configFiles(cmd)
			}
			cfg, err := load(files, false)
			var errs config.Errors
			if err != nil && !errors.As(err, &errs) {
				return withCode(ExitUsage, err)
			}
			if asJSON {
				if err := present.WriteJSON(cmd.OutOrStdout(), validateJSON(cfg, errs)); err != nil {
					return err
				}
			} else {
				writeValidate(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg, errs)
			}
			if len(errs) > 0 {
				return silentExit(ExitUsage)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON")
	return cmd
}

// configFiles returns the --config files given to cmd, wherever the flag
// is defined.
func configFiles(cmd *cobra.Command) []string {
	files, err := cmd.Flags().GetStringSlice(configFlag)
	if err != nil {
		return nil
	}
	return files
}

// loadRunnable loads the configuration the commands work from: files (the
// --config flags) or discovery, with the embedded default and ${mcpdeck}
// set to this executable. A server whose own definition is invalid is
// kept, marked and isolated (it never starts, and says why), so it does
// not stop the others, nor hide its name. Problems outside any server are
// an ExitUsage error listing every problem; nothing may start from it.
func loadRunnable(files []string) (*config.Config, error) {
	return loadFor(files, true, nil)
}

// loadFor loads as load does and words its errors; vars are extra
// predefined variables (a test suite's inputs).
func loadFor(files []string, keepInvalid bool, vars map[string]string) (*config.Config, error) {
	cfg, err := loadWithVars(files, keepInvalid, vars)
	var errs config.Errors
	switch {
	case errors.As(err, &errs):
		return nil, withCode(ExitUsage, invalidConfigError(errs))
	case err != nil:
		return nil, withCode(ExitUsage, fmt.Errorf("loading configuration: %w", err))
	}
	return cfg, nil
}

// warnLoud prints, for a command that uses servers, their warnings that
// likely keep them from working as meant (config.Config.Loud: a misspelt
// field, an empty argument), which only config validate would say
// otherwise.
func warnLoud(w io.Writer, cfg *config.Config, servers []config.Server) {
	for _, s := range servers {
		for _, d := range cfg.Loud(s) {
			warnf(w, "warning: %s", d)
		}
	}
}

// warnLoudFiles prints the warnings about whole files that likely keep
// their servers from running (config.Config.LoudFile: servers written
// outside "mcpServers"), before a command looks for the servers it names:
// "no server "github"" alone would not say that the file has it, in the
// wrong place.
func warnLoudFiles(w io.Writer, cfg *config.Config) {
	for _, d := range cfg.LoudFile() {
		warnf(w, "warning: %s", d)
	}
}

// load reads the configuration with the approvals recorded so far: a
// project file approved at its current content is read in full, one that
// is not is read for the approval prompt only (its envFile is not read and
// its servers are Unapproved); after approving, load again. With
// keepInvalid a server with an invalid definition is kept, marked Invalid
// (the runtime never starts it).
func load(files []string, keepInvalid bool) (*config.Config, error) {
	return loadWithVars(files, keepInvalid, nil)
}

// loadWithVars is load with extra predefined variables.
func loadWithVars(files []string, keepInvalid bool, vars map[string]string) (*config.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = "mcpdeck"
	}
	opts := config.LoadOptions{
		Files:       files,
		Default:     assets.DefaultConfig,
		DefaultName: assets.DefaultConfigName,
		Vars:        map[string]string{"mcpdeck": exe},
		KeepInvalid: keepInvalid,
	}
	for k, v := range vars {
		opts.Vars[k] = v
	}
	// An unreadable trust store approves nothing; approveProject reports it.
	if ts, err := config.OpenTrustStore(""); err == nil {
		opts.Approved = ts.Trusted
	}
	return config.Load(opts)
}

// loadApproved loads the configuration, approves its project files with
// approveProject (which refuses unless trust), and loads again when it
// approved anything, since only an approved file's envFile is read.
func loadApproved(cmd *cobra.Command, trust bool) (*config.Config, error) {
	cfg, err := loadRunnable(configFiles(cmd))
	if err != nil {
		return nil, err
	}
	if len(cfg.Unapproved()) == 0 {
		return cfg, nil
	}
	if err := approveProject(cfg, trust); err != nil {
		return nil, err
	}
	cfg, err = loadRunnable(configFiles(cmd))
	if err != nil {
		return nil, err
	}
	if pending := cfg.Unapproved(); len(pending) > 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("project configuration %s changed while it was being approved; review it and run again", pending[0].Path))
	}
	return cfg, nil
}

// invalidConfigError reports every problem of a configuration that failed
// validation, and what to do next.
type invalidConfigError config.Errors

// Error lists every problem under a one-line verdict, for run to print.
func (e invalidConfigError) Error() string {
	lines := make([]string, len(e))
	for i, d := range e {
		lines[i] = d.String()
	}
	return problemList(present.Count(len(e), "configuration error", "configuration errors")+"; nothing was started",
		lines, `fix them and check with "mcpdeck config validate"`)
}

// problemList is the text of an error that stops a command for many
// problems at once: the verdict, each problem on its own indented line,
// then what to do.
func problemList(verdict string, problems []string, next string) string {
	var b strings.Builder
	b.WriteString(verdict + ":\n")
	for _, p := range problems {
		b.WriteString("  " + p + "\n")
	}
	b.WriteString(next)
	return b.String()
}

// Unwrap exposes the config.Errors, so errors.Is(err, config.ErrInvalid) holds.
func (e invalidConfigError) Unwrap() error { return config.Errors(e) }

// approveProject checks that every project file whose servers are about to
// start has been approved: they run commands that someone else may have
// written. With trust it records the approval; without it, it refuses with
// the way out. Headless commands that start servers call it.
func approveProject(cfg *config.Config, trust bool) error {
	ts, err := config.OpenTrustStore("")
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("checking project approvals: %w", err))
	}
	untrusted := cfg.Untrusted(ts)
	if len(untrusted) == 0 {
		return nil
	}
	if !trust {
		paths := make([]string, len(untrusted))
		for i, f := range untrusted {
			paths[i] = f.Path
		}
		return withCode(ExitUsage, fmt.Errorf("project configuration not approved: %s starts commands from this project; review it, then run again with --trust-project (or approve it in the TUI)", strings.Join(paths, ", ")))
	}
	for _, f := range untrusted {
		if err := ts.Trust(f); err != nil {
			return withCode(ExitUsage, fmt.Errorf("approving %s: %w", f.Path, err))
		}
	}
	return nil
}

// approval is what show says about a file's approval.
type approval string

const (
	approvalNone     approval = ""             // not a project file with servers
	approvalApproved approval = "approved"     // approved at this content
	approvalPending  approval = "not approved" // its servers will not start yet
	approvalUnknown  approval = "unknown"      // the trust store could not be read
)

// suffix is what config show and validate print after a file's path.
func (a approval) suffix() string {
	switch a {
	case approvalApproved:
		return "  approved"
	case approvalPending:
		return "  NOT APPROVED: its servers will not start until approved (--trust-project or the TUI)"
	case approvalUnknown:
		return "  approval unknown: the trust store cannot be read"
	}
	return ""
}

// approvalStates maps each file path to its approval state.
func approvalStates(cfg *config.Config) map[string]approval {
	out := map[string]approval{}
	ts, err := config.OpenTrustStore("")
	for _, f := range cfg.Files {
		switch {
		case f.Scope != config.ScopeProject || len(f.Servers) == 0:
			out[f.Path] = approvalNone
		case err != nil:
			out[f.Path] = approvalUnknown
		case ts.Trusted(f):
			out[f.Path] = approvalApproved
		default:
			out[f.Path] = approvalPending
		}
	}
	return out
}

// writeShow prints the human form of config show.
func writeShow(w io.Writer, cfg *config.Config, approvals map[string]approval, reveal bool) {
	fmt.Fprintln(w, "Files")
	for _, f := range cfg.Files {
		fmt.Fprintf(w, "  %-8s %s  sha256:%s%s\n", f.Scope, f.Path, f.Hash[:12], approvals[f.Path].suffix())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Servers")
	if len(cfg.Servers) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, s := range cfg.Servers {
		if !reveal {
			s = s.Redacted()
		}
		state := "enabled"
		if !s.Enabled {
			state = "disabled"
		}
		field := func(name, value string) { fmt.Fprintf(w, "    %-13s%s\n", name, value) }
		if problems := invalidOf(s); len(problems) > 0 {
			// Nothing else in an invalid definition can be trusted.
			fmt.Fprintf(w, "  %s  INVALID: it will not start until fixed\n", s.Name)
			field("source", fmt.Sprintf("%s (%s)", s.Pos, s.Scope))
			for i, d := range problems {
				field(cond(i == 0, "problems", ""), d.String())
			}
			continue
		}
		fmt.Fprintf(w, "  %s  %s\n", s.Name, state)
		field("source", fmt.Sprintf("%s (%s)", s.Pos, s.Scope))
		field("transport", string(s.Transport))
		if s.Transport == config.TransportStdio {
			field("command", present.CommandLine(s.Command, s.Args))
			if s.Cwd != "" {
				field("cwd", s.Cwd)
			}
		} else {
			field("url", s.URL)
		}
		for i, k := range slices.Sorted(maps.Keys(s.Env)) {
			field(cond(i == 0, "env", ""), k+"="+s.Env[k])
		}
		if s.EnvFile != "" {
			field("envFile", s.EnvFile+cond(s.Unapproved, " (not read until the file is approved)", ""))
		}
		if s.Transport == config.TransportStdio {
			field("envInherit", inheritText(s.EnvInherit))
		}
		if len(s.SecretNames) > 0 {
			field("secrets", strings.Join(s.SecretNames, ", "))
		}
		for i, k := range slices.Sorted(maps.Keys(s.Headers)) {
			field(cond(i == 0, "headers", ""), k+": "+s.Headers[k])
		}
		if o := oauthOf(s.OAuth); o != nil {
			field("oauth", oauthText(o))
		}
		if s.LogLevel != "" {
			field("logLevel", s.LogLevel)
		}
		for i, r := range s.Roots {
			field(cond(i == 0, "roots", ""), r)
		}
		field("timeouts", fmt.Sprintf("startup %s, call %s, ping %s", s.StartupTimeout, s.CallTimeout, pingText(s.PingInterval)))
		field("reconnect", reconnectText(s.AutoReconnect))
		if s.NeedsInput != "" {
			field("not started", s.NeedsInput)
		}
	}
	writeGatewayShow(w, cfg)
	if len(cfg.Shadowed) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Shadowed")
		for _, sh := range cfg.Shadowed {
			fmt.Fprintf(w, "  %s  %s (%s), overridden by %s (%s)\n", sh.Name, sh.Server.Pos, sh.Server.Scope, sh.Winner, sh.WinnerScope)
		}
	}
	if len(cfg.Warnings) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Warnings")
		for _, d := range cfg.Warnings {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
}

// writeValidate prints the human form of config validate: the verdict on
// stdout, the problems on stderr.
func writeValidate(stdout, stderr io.Writer, cfg *config.Config, errs config.Errors) {
	for _, d := range errs {
		fmt.Fprintf(stderr, "error: %s\n", d)
	}
	for _, d := range cfg.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", d)
	}
	if len(errs) > 0 {
		fmt.Fprintf(stderr, "mcpdeck: %s in %s; nothing would start until they are fixed\n", present.Count(len(errs), "error", "errors"), present.Count(len(cfg.Files), "file", "files"))
		return
	}
	// Valid is not loaded: a project file not approved is read for its
	// approval only, and its servers do not start.
	approvals := approvalStates(cfg)
	n := 0
	for _, f := range cfg.Files {
		if approvals[f.Path] == approvalPending {
			n++
		}
	}
	pending := ""
	if n > 0 {
		pending = fmt.Sprintf(", %d not approved", n)
	}
	// Warnings do not fail the check, but a file whose servers all sit
	// outside "mcpServers" validates as "0 servers": the count says
	// there is more to read above.
	if len(cfg.Warnings) > 0 {
		pending += ", " + present.Count(len(cfg.Warnings), "warning", "warnings") + " (on stderr)"
	}
	fmt.Fprintf(stdout, "ok: %s in %s%s\n", present.Count(len(cfg.Servers), "server", "servers"), present.Count(len(cfg.Files), "file", "files"), pending)
	for _, f := range cfg.Files {
		fmt.Fprintf(stdout, "  %-8s %s%s\n", f.Scope, f.Path, approvals[f.Path].suffix())
	}
}

func pingText(d time.Duration) string {
	if d == 0 {
		return "off"
	}
	return "every " + d.String()
}

func reconnectText(r config.Reconnect) string {
	if !r.Enabled {
		return "off"
	}
	return fmt.Sprintf("up to %d attempts, backoff %s to %s", r.MaxAttempts, r.InitialBackoff, r.MaxBackoff)
}

func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// The JSON shapes below are the stable machine output of config show and
// config validate; durations are Go duration strings ("30s"), and maps
// print with sorted keys.

type fileJSON struct {
	Path     string   `json:"path"`
	Scope    string   `json:"scope"`
	SHA256   string   `json:"sha256"`
	Servers  []string `json:"servers"`
	Approval string   `json:"approval,omitempty"` // project files with servers only
}

type reconnectJSON struct {
	Enabled        bool   `json:"enabled"`
	MaxAttempts    int    `json:"maxAttempts"`
	InitialBackoff string `json:"initialBackoff"`
	MaxBackoff     string `json:"maxBackoff"`
}

type serverJSON struct {
	Name           string            `json:"name"`
	Enabled        bool              `json:"enabled"`
	Transport      string            `json:"transport"`
	Command        string            `json:"command,omitempty"`
	Args           []string          `json:"args,omitempty"`
	Cwd            string            `json:"cwd,omitempty"`
	URL            string            `json:"url,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	StartupTimeout string            `json:"startupTimeout"`
	CallTimeout    string            `json:"callTimeout"`
	PingInterval   string            `json:"pingInterval"` // "off" when pings are off
	AutoReconnect  reconnectJSON     `json:"autoReconnect"`
	NeedsInput     string            `json:"needsInput,omitempty"`
	EnvFile        string            `json:"envFile,omitempty"`
	EnvInherit     any               `json:"envInherit,omitempty"` // "all", or the names; omitted for the default set
	Secrets        []string          `json:"secrets,omitempty"`    // names marked secret
	OAuth          *oauthJSON        `json:"oauth,omitempty"`
	LogLevel       string            `json:"logLevel,omitempty"`
	Roots          []string          `json:"roots,omitempty"`
	Invalid        []diagnosticJSON  `json:"invalid,omitempty"` // a broken definition's problems; nothing else is set
	Source         string            `json:"source"`
	Scope          string            `json:"scope"`
	Line           int               `json:"line"`
	Column         int               `json:"column"`
}

type shadowedJSON struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	Scope       string `json:"scope"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Winner      string `json:"winner"`
	WinnerScope string `json:"winnerScope"`
}

type diagnosticJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Server  string `json:"server,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

type showOutput struct {
	Files    []fileJSON       `json:"files"`
	Servers  []serverJSON     `json:"servers"`
	Shadowed []shadowedJSON   `json:"shadowed"`
	Warnings []diagnosticJSON `json:"warnings"`
	Gateway  *gatewayJSON     `json:"gateway,omitempty"` // present when a file has a gateway block
}

type validateOutput struct {
	Valid    bool             `json:"valid"`
	Files    []fileJSON       `json:"files"`
	Errors   []diagnosticJSON `json:"errors"`
	Warnings []diagnosticJSON `json:"warnings"`
}

func showJSON(cfg *config.Config, approvals map[string]approval, reveal bool) showOutput {
	out := showOutput{Files: filesJSON(cfg, approvals), Servers: []serverJSON{}, Shadowed: []shadowedJSON{}, Warnings: diagnosticsJSON(cfg.Warnings), Gateway: gatewayOf(cfg)}
	for _, s := range cfg.Servers {
		if !reveal {
			s = s.Redacted()
		}
		if problems := invalidOf(s); len(problems) > 0 {
			out.Servers = append(out.Servers, serverJSON{
				Name: s.Name, Enabled: s.Enabled, Invalid: diagnosticsJSON(problems),
				Source: s.Source, Scope: string(s.Scope), Line: s.Pos.Line, Column: s.Pos.Column,
			})
			continue
		}
		out.Servers = append(out.Servers, serverJSON{
			Name: s.Name, Enabled: s.Enabled, Transport: string(s.Transport),
			Command: s.Command, Args: s.Args, Cwd: s.Cwd, URL: s.URL, Env: s.Env, Headers: s.Headers,
			StartupTimeout: s.StartupTimeout.String(), CallTimeout: s.CallTimeout.String(),
			PingInterval: cond(s.PingInterval == 0, "off", s.PingInterval.String()),
			AutoReconnect: reconnectJSON{
				Enabled: s.AutoReconnect.Enabled, MaxAttempts: s.AutoReconnect.MaxAttempts,
				InitialBackoff: s.AutoReconnect.InitialBackoff.String(), MaxBackoff: s.AutoReconnect.MaxBackoff.String(),
			},
			NeedsInput: s.NeedsInput, EnvFile: s.EnvFile, EnvInherit: inheritJSON(s.EnvInherit), Secrets: s.SecretNames,
			OAuth: oauthOf(s.OAuth), LogLevel: s.LogLevel, Roots: s.Roots, Source: s.Source, Scope: string(s.Scope), Line: s.Pos.Line, Column: s.Pos.Column,
		})
	}
	for _, sh := range cfg.Shadowed {
		out.Shadowed = append(out.Shadowed, shadowedJSON{
			Name: sh.Name, Source: sh.Server.Source, Scope: string(sh.Server.Scope),
			Line: sh.Server.Pos.Line, Column: sh.Server.Pos.Column,
			Winner: sh.Winner, WinnerScope: string(sh.WinnerScope),
		})
	}
	return out
}

// invalidOf returns the problems of a server kept although its definition
// is invalid, nil for a valid one.
func invalidOf(s config.Server) config.Errors {
	var errs config.Errors
	if s.Invalid != nil && !errors.As(s.Invalid, &errs) {
		errs = config.Errors{{Pos: s.Pos, Server: s.Name, Message: s.Invalid.Error()}}
	}
	return errs
}

func validateJSON(cfg *config.Config, errs config.Errors) validateOutput {
	var approvals map[string]approval
	var warnings []config.Diagnostic
	if cfg != nil {
		approvals = approvalStates(cfg)
		warnings = cfg.Warnings
	}
	return validateOutput{Valid: len(errs) == 0, Files: filesJSON(cfg, approvals), Errors: diagnosticsJSON(errs), Warnings: diagnosticsJSON(warnings)}
}

func filesJSON(cfg *config.Config, approvals map[string]approval) []fileJSON {
	out := []fileJSON{}
	if cfg == nil {
		return out
	}
	for _, f := range cfg.Files {
		out = append(out, fileJSON{Path: f.Path, Scope: string(f.Scope), SHA256: f.Hash, Servers: cond(f.Servers == nil, []string{}, f.Servers), Approval: string(approvals[f.Path])})
	}
	return out
}

func diagnosticsJSON(ds []config.Diagnostic) []diagnosticJSON {
	out := []diagnosticJSON{}
	for _, d := range ds {
		out = append(out, diagnosticJSON{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Column, Server: d.Server, Field: d.Field, Message: d.Message})
	}
	return out
}

// oauthJSON is a server's "oauth" block in config show (the client
// secret redacted by Server.Redacted unless --reveal).
type oauthJSON struct {
	ClientID              string   `json:"clientId,omitempty"`
	ClientSecret          string   `json:"clientSecret,omitempty"`
	Scopes                []string `json:"scopes,omitempty"`
	RedirectPort          int      `json:"redirectPort,omitempty"`
	GrantType             string   `json:"grantType,omitempty"`
	ClientMetadataURL     string   `json:"clientMetadataUrl,omitempty"`
	AuthServerMetadataURL string   `json:"authServerMetadataUrl,omitempty"`
}

func oauthOf(o *config.OAuth) *oauthJSON {
	if o == nil {
		return nil
	}
	return &oauthJSON{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes, RedirectPort: o.RedirectPort,
		GrantType: string(o.GrantType), ClientMetadataURL: o.ClientMetadataURL, AuthServerMetadataURL: o.AuthServerMetadataURL}
}

func oauthText(o *oauthJSON) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	add("clientId", o.ClientID)
	add("clientSecret", o.ClientSecret)
	add("scopes", strings.Join(o.Scopes, " "))
	if o.RedirectPort != 0 {
		add("redirectPort", fmt.Sprint(o.RedirectPort))
	}
	add("grantType", o.GrantType)
	add("clientMetadataUrl", o.ClientMetadataURL)
	add("authServerMetadataUrl", o.AuthServerMetadataURL)
	if len(parts) == 0 {
		return "(defaults)"
	}
	return strings.Join(parts, ", ")
}

func inheritText(e config.EnvInherit) string {
	switch {
	case e.All:
		return "all of mcpdeck's environment"
	case len(e.Names) > 0:
		return "the default set and " + strings.Join(e.Names, ", ")
	}
	return "the default set"
}

func inheritJSON(e config.EnvInherit) any {
	switch {
	case e.All:
		return "all"
	case len(e.Names) > 0:
		return e.Names
	}
	return nil
}
