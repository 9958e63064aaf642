package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// targetFlags are the ad-hoc server flags of every command that takes
// SERVER: a server given on the command line instead of in mcp.json.
type targetFlags struct {
	url       string
	headers   []string
	transport string
	stdio     string
	login     bool
	// withDisabled keeps the servers the configuration disables when no
	// server is named (servers lists every configured one; they are not
	// started). Not a flag: the command sets it.
	withDisabled bool
}

func addTargetFlags(cmd *cobra.Command, f *targetFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "an ad-hoc remote server at `URL` instead of a configured one")
	fl.StringArrayVar(&f.headers, "header", nil, "a request header for --url, as 'K: V' (repeatable)")
	fl.StringVar(&f.transport, "transport", "", "transport for --url: http (Streamable HTTP) or sse (legacy); default: http, falling back to sse")
	fl.StringVar(&f.stdio, "stdio", "", "an ad-hoc stdio server: `'CMD ARGS'`, split like a shell and run without one")
	fl.BoolVar(&f.login, "login", false, "when a server needs MCP authorization, log in now (browser) instead of failing; the token is stored")
}

// adHocName names the ad-hoc server in output.
const adHocName = "adhoc"

// adHocServer is the start of an ad-hoc server (--stdio, --url, or a test
// suite's inline server): defaults as for a server in mcp.json, and source
// saying where it was given. Like one in mcp.json it is started again when
// it fails, where something lives on to serve it (the gateway, monitor,
// the TUI); one-shot commands turn that off for every server.
func adHocServer(source string) config.Server {
	return config.Server{
		Name: adHocName, Enabled: true, Scope: config.ScopeExplicit, Source: source,
		StartupTimeout: config.DefaultStartupTimeout, CallTimeout: config.DefaultCallTimeout,
		PingInterval: config.DefaultPingInterval, AutoReconnect: config.DefaultReconnect(),
	}
}

// adHoc builds the ad-hoc server, or reports false when none was given.
func (f *targetFlags) adHoc() (config.Server, bool, error) {
	if f.url == "" && f.stdio == "" {
		if len(f.headers) > 0 || f.transport != "" {
			return config.Server{}, false, withCode(ExitUsage, errors.New("--header and --transport go with --url"))
		}
		return config.Server{}, false, nil
	}
	s := adHocServer(config.SourceCommandLine)
	switch {
	case f.url != "" && f.stdio != "":
		return s, false, withCode(ExitUsage, errors.New("give either --url or --stdio, not both"))
	case f.stdio != "":
		words, err := shlex.Split(f.stdio)
		if err != nil || len(words) == 0 {
			return s, false, withCode(ExitUsage, fmt.Errorf("--stdio %q: give a command and its arguments, e.g. --stdio 'npx -y server-x'", f.stdio))
		}
		s.Transport, s.Command, s.Args = config.TransportStdio, words[0], words[1:]
		// Typed in the user's own shell, an ad-hoc command runs as it would
		// there: with the whole environment (FOO=1 mcpdeck call --stdio ...).
		s.EnvInherit = config.EnvInherit{All: true}
	default:
		u, err := url.Parse(f.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, false, withCode(ExitUsage, fmt.Errorf("--url %q: give an http:// or https:// URL", f.url))
		}
		s.URL = f.url
		switch f.transport {
		case "":
			// As for a url without "type" in mcp.json: Streamable HTTP,
			// falling back to legacy SSE if the server speaks only that.
			s.Transport, s.TransportInferred = config.TransportHTTP, true
		case "http", "streamable-http":
			s.Transport = config.TransportHTTP
		case "sse":
			s.Transport = config.TransportSSE
		default:
			return s, false, withCode(ExitUsage, fmt.Errorf("--transport %q: use http or sse", f.transport))
		}
		headers, err := parseHeaders(f.headers)
		if err != nil {
			return s, false, err
		}
		s.Headers = map[string]string{}
		for _, h := range headers {
			s.Headers[h.Name] = h.Value
		}
	}
	return s, true, nil
}

// resolveTargets returns the configuration a headless command runs on:
// the ad-hoc server if one was given, else the discovered configuration
// narrowed to the named servers (every enabled one when none is named).
// A named server is started even if its configuration disables it: naming
// it is an explicit request. Project files must be approved.
func resolveTargets(cmd *cobra.Command, f *targetFlags, names []string) (*config.Config, error) {
	if s, ok, err := f.adHoc(); err != nil {
		return nil, err
	} else if ok {
		if len(names) > 0 {
			return nil, withCode(ExitUsage, fmt.Errorf("name no SERVER with --url or --stdio (got %s)", strings.Join(names, ", ")))
		}
		return &config.Config{Servers: []config.Server{s}}, nil
	}
	return resolveConfigured(cmd, names, nil, f.withDisabled)
}

// resolveConfigured is resolveTargets for configured servers; vars are
// extra predefined variables of the configuration (a test suite's inputs);
// withDisabled keeps the disabled servers when none is named (see narrow).
func resolveConfigured(cmd *cobra.Command, names []string, vars map[string]string, withDisabled bool) (*config.Config, error) {
	cfg, err := loadFor(configFiles(cmd), true, vars)
	if err != nil {
		return nil, err
	}
	warnLoudFiles(cmd.ErrOrStderr(), cfg)
	narrowed, err := narrow(cfg, names, withDisabled)
	if err != nil {
		return nil, err
	}
	warnLoud(cmd.ErrOrStderr(), cfg, narrowed.Servers)
	trust, _ := cmd.Flags().GetBool("trust-project")
	if err := approveProject(narrowed, trust); err != nil {
		return nil, err
	}
	if !anyUnapproved(narrowed.Servers) {
		return narrowed, nil
	}
	// Approved just now: load again, since an unapproved file's envFile
	// was not read; as leniently as the first load, so another server's
	// invalid definition stays that server's problem.
	if cfg, err = loadFor(configFiles(cmd), true, vars); err != nil {
		return nil, err
	}
	if narrowed, err = narrow(cfg, names, withDisabled); err != nil {
		return nil, err
	}
	if anyUnapproved(narrowed.Servers) {
		return nil, withCode(ExitUsage, errors.New("the project configuration changed while it was being approved; review it and run again"))
	}
	return narrowed, nil
}

func anyUnapproved(servers []config.Server) bool {
	for _, s := range servers {
		if s.Unapproved {
			return true
		}
	}
	return false
}

// narrow keeps the named servers (every enabled one when none is named,
// and with withDisabled the disabled ones too, still disabled: the runtime
// shows them and never starts them).
func narrow(cfg *config.Config, names []string, withDisabled bool) (*config.Config, error) {
	narrowed := *cfg
	narrowed.Servers = nil
	if len(names) == 0 {
		for _, s := range cfg.Servers {
			if s.Enabled || withDisabled {
				narrowed.Servers = append(narrowed.Servers, s)
			}
		}
	} else {
		for _, name := range names {
			s, ok := cfg.Server(name)
			if !ok {
				var all []string
				for _, s := range cfg.Servers {
					all = append(all, s.Name)
				}
				return nil, withCode(ExitUsage, aboutServer(name, runtime.KindUnknownServer,
					fmt.Errorf("no server %q in %s%s (configured: %s)", name, sourcesOf(cfg), didYouMean(name, all), namesOf(cfg))))
			}
			s.Enabled = true
			narrowed.Servers = append(narrowed.Servers, s)
		}
	}
	for _, s := range narrowed.Servers {
		if s.NeedsInput != "" && len(names) > 0 {
			return nil, withCode(ExitUsage, fmt.Errorf("server %q cannot start: %s", s.Name, s.NeedsInput))
		}
	}
	return &narrowed, nil
}

func sourcesOf(cfg *config.Config) string {
	if len(cfg.Files) == 0 {
		return "the configuration"
	}
	var out []string
	for _, f := range cfg.Files {
		out = append(out, filepath.Base(f.Path))
	}
	return strings.Join(out, ", ")
}

func namesOf(cfg *config.Config) string {
	if len(cfg.Servers) == 0 {
		return "none"
	}
	var out []string
	for _, s := range cfg.Servers {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// startRuntime builds a controller for cfg and turns MCP on. The caller
// must Shutdown the controller (use shutdownRuntime). An error here means
// the controller could not even be enabled; individual servers that failed
// are in its snapshot. before, if given, runs between building the
// controller and enabling it (a recorder subscribes there).
func startRuntime(ctx context.Context, cfg *config.Config, opts runtime.Options, before ...func(*runtime.Controller, *config.Config) error) (*runtime.Controller, error) {
	opts.Config = cfg
	if opts.ClientVersion == "" {
		opts.ClientVersion = version()
	}
	// A one-shot command reports each server's first start: a retry would
	// leave a server undecided (starting again) when the report is made.
	opts.NoAutoReconnect = true
	rt := runtime.New(opts)
	for _, f := range before {
		if err := f(rt, cfg); err != nil {
			shutdownRuntime(rt)
			return nil, err
		}
	}
	if err := rt.SetEnabled(ctx, true); err != nil {
		shutdownRuntime(rt)
		return nil, withCode(exitCodeOf(err), err)
	}
	return rt, nil
}

// openTargets is the opening of every command that talks to servers:
// resolve the targets, say so when there are none, and start a runtime on
// them. what names the command in the message for an interrupt. The
// caller defers shutdownRuntime.
func openTargets(ctx context.Context, cmd *cobra.Command, tf *targetFlags, names []string, what string, opts runtime.Options, before ...func(*runtime.Controller, *config.Config) error) (*runtime.Controller, error) {
	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(cfg.Servers, func(s config.Server) bool { return s.Enabled }) {
		warnf(cmd.ErrOrStderr(), "no enabled server in %s; enable one in mcp.json, name one, or give --url or --stdio", sourcesOf(cfg))
	}
	runtime.Prepare(cfg) // the watchdog's spawn, beside the loading below
	if opts, err = sessionOptions(cmd, opts); err != nil {
		return nil, err
	}
	if opts.Auth == nil {
		opts.Auth = newAuthManager(cmd, 0)
	}
	opts.InteractiveLogin = tf.login
	return startCommand(ctx, what, cfg, opts, before...)
}

// startCommand is startRuntime for the command named what: an error that
// an interrupt caused is said as one (interrupted).
func startCommand(ctx context.Context, what string, cfg *config.Config, opts runtime.Options, before ...func(*runtime.Controller, *config.Config) error) (*runtime.Controller, error) {
	rt, err := startRuntime(ctx, cfg, opts, before...)
	if err != nil && ctx.Err() != nil {
		return nil, interrupted(what)
	}
	return rt, err
}

// withTargets is the whole life of a command that reads the servers it
// targets: ctx ends on an interrupt, the runtime is started on them
// (openTargets, every elicitation declined), fn runs, and every server is
// torn down after.
func withTargets(cmd *cobra.Command, tf *targetFlags, names []string, what string, fn func(context.Context, *runtime.Controller) error) error {
	ctx, stop := signalContext(cmd)
	defer stop()
	rt, err := openTargets(ctx, cmd, tf, names, what, runtime.Options{Elicitor: runtime.DeclineElicitor{}})
	if err != nil {
		return err
	}
	defer shutdownRuntime(rt)
	return fn(ctx, rt)
}

// withServer is withTargets for a command on one server, which must be up
// (openOne: it also offers --sampling).
func withServer(cmd *cobra.Command, tf *targetFlags, server string, names []string, what string, fn func(context.Context, *runtime.Controller) error) error {
	ctx, stop := signalContext(cmd)
	defer stop()
	rt, err := openOne(ctx, cmd, tf, server, names, what)
	if err != nil {
		return err
	}
	defer shutdownRuntime(rt)
	return fn(ctx, rt)
}

// shutdownRuntime tears every server down and waits for it.
func shutdownRuntime(rt *runtime.Controller) {
	_ = rt.Shutdown(context.Background())
}

// exitCodeOf maps a runtime error to the command line's exit codes.
func exitCodeOf(err error) int {
	var argErr *runtime.ArgumentsError
	switch {
	case err == nil:
		return ExitOK
	case present.InfoOf(err).ResourceMissing():
		return ExitUsage // an unknown resource, as an unknown tool or server
	case errors.As(err, &argErr), errors.Is(err, runtime.ErrUnknownServer), errors.Is(err, runtime.ErrUnknownTool),
		errors.Is(err, runtime.ErrUnknownPrompt), errors.Is(err, runtime.ErrUnknownResource), errors.Is(err, runtime.ErrUnknownTask),
		errors.Is(err, runtime.ErrToolSwitchedOff), errors.Is(err, config.ErrInvalid):
		return ExitUsage
	case errors.Is(err, runtime.ErrDeclined):
		// The operator declined what the server asked (sampling, an
		// elicitation it asks again): the call failed as a tool does, in
		// either era, whether the server ends it with the decline or
		// answers isError.
		return ExitToolError
	case errors.Is(err, runtime.ErrTimeout), errors.Is(err, runtime.ErrCancelled), errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	default:
		return ExitConnection
	}
}

// failures returns the error of every server in snap that is not ready,
// and the exit code they make together: the first of ExitUsage (its
// configuration must change: invalid, or an input only VS Code gives),
// ExitConnection (it cannot start, or needs a login) and ExitTimeout (it
// was not ready in time) that applies; ExitOK when every one is ready.
func failures(snap *runtime.Snapshot) ([]error, int) {
	var errs []error
	seen := map[int]bool{}
	for _, v := range snap.Servers {
		if !v.Enabled && v.State == runtime.StateDisabled {
			continue // disabled, and not asked for: listed, never a failure
		}
		if err := serverFailure(snap, v.Name); err != nil {
			errs = append(errs, err)
			// A disabled server whose configuration is invalid (a variable
			// nobody set yet) is said, but it would not start anyway: no
			// failure either, unless it is named.
			if v.Enabled || v.State != runtime.StateInvalid {
				seen[codeOf(err)] = true
			}
		}
	}
	for _, code := range []int{ExitUsage, ExitConnection, ExitTimeout} {
		if seen[code] {
			return errs, code
		}
	}
	return errs, ExitOK
}

// reportFailures says on stderr why each server that is not ready is not,
// and returns the exit code that makes (see failures).
func reportFailures(w io.Writer, snap *runtime.Snapshot) int {
	errs, code := failures(snap)
	for _, err := range errs {
		warnf(w, "%s", present.ErrorText(err, present.CLI)) // with its hint, as the error a command ends with
	}
	return code
}

// listFailed is how a listing (tools, prompts, resources) run with --json
// ends when none of its servers came up: nothing was listed, so the
// command failed as a whole, and it returns the failure that makes its exit
// code, for the error object, as call does; the other failures are said on
// stderr first. Nil when a server is ready or none failed: the listing is
// printed, with its "errors".
func listFailed(cmd *cobra.Command, snap *runtime.Snapshot) error {
	errs, code := failures(snap)
	if code == ExitOK || slices.ContainsFunc(snap.Servers, func(v runtime.ServerSnapshot) bool { return v.State.Live() }) {
		return nil
	}
	var end error
	for _, err := range errs {
		if end == nil && codeOf(err) == code {
			end = err
			continue
		}
		warnf(cmd.ErrOrStderr(), "%s", present.ErrorText(err, present.CLI))
	}
	return end
}

// serverFailure returns the error of a named server that did not become
// ready, from the snapshot, with its hint; nil if it is ready.
func serverFailure(snap *runtime.Snapshot, name string) error {
	v, ok := snap.Server(name)
	if !ok {
		return withCode(ExitUsage, aboutServer(name, runtime.KindUnknownServer, fmt.Errorf("%w %q", runtime.ErrUnknownServer, name)))
	}
	switch {
	case v.State.Live():
		return nil
	case v.State == runtime.StateInvalid:
		return withCode(ExitUsage, aboutServer(name, runtime.KindConfig, fmt.Errorf("server %q has an invalid configuration: %s", name, v.Note)))
	case v.State == runtime.StateDisabled && v.Note != "":
		return withCode(ExitUsage, aboutServer(name, runtime.KindConfig, fmt.Errorf("server %q cannot start: %s", name, v.Note)))
	}
	if v.LastError != nil {
		return withCode(exitCodeOf(v.LastError), runtime.AboutServer(fmt.Sprintf("server %q %s", name, present.StateSentence(v.State)), name, v.LastError))
	}
	return withCode(ExitConnection, fmt.Errorf("server %q %s", name, present.StateSentence(v.State)))
}
