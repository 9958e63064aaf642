package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/apphost"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/check"
	"mcpdeck/runtime/registry"
	"mcpdeck/ui"
)

// runTUI is the root command: the terminal UI on the discovered
// configuration. MCP stays off until the user turns it on (m) or --enable
// says so. SIGTERM and SIGHUP end the UI with the same teardown as q.
func runTUI(cmd *cobra.Command, enable bool, logFile string, rf *recordFlags, tf *telemetryFlags, target *targetFlags) (err error) {
	// --trust-project approves before the approvals are read below, and the
	// configuration is read again: only an approved file's envFile is read.
	trust, _ := cmd.Flags().GetBool("trust-project")
	var cfg *config.Config
	adHoc, isAdHoc, err := target.adHoc()
	switch {
	case err != nil:
		return err
	case isAdHoc:
		// An ad-hoc server (--stdio, --url) is the whole configuration:
		// nothing is discovered, reloaded or written.
		cfg = &config.Config{Servers: []config.Server{adHoc}}
	case trust:
		cfg, err = loadApproved(cmd, true)
	default:
		cfg, err = loadRunnable(configFiles(cmd))
	}
	if err != nil {
		return err
	}
	rec := &recording{flags: rf, cfg: cfg}
	if err := rec.validate(); err != nil {
		return err
	}
	ts, err := config.OpenTrustStore("")
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("opening project approvals: %w", err))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	// Nothing but the TUI may write to the terminal: telemetry logs to the
	// --log file, or nowhere.
	var logOut *os.File
	tlog := slog.New(slog.DiscardHandler)
	if logFile != "" {
		if logOut, err = os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
			return withCode(ExitUsage, fmt.Errorf("opening the log file: %w (give --log a writable path)", err))
		}
		defer logOut.Close()
		tlog = slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	tel, err := tf.startTelemetry(ctx, tlog)
	if err != nil {
		return err
	}
	defer shutdownTelemetry(tel)
	// Tokens stored by "mcpdeck auth login" authorize remote servers; the
	// TUI's login key uses the same manager, whose URLs go to the UI, never
	// to the terminal.
	urls := &ui.LoginURLs{}
	mgr := auth.NewManager(auth.Options{OnSecret: config.AddSecret, OnURL: urls.Report})
	// With --serve, the gateway's clients answer what servers ask during
	// their calls, and the operator what they cannot.
	who := noGateway
	serveAddr, _ := cmd.Flags().GetString("serve")
	if serveAddr != "" {
		who = answeredByOperator
	}
	opts, err := gatewayRuntimeOptions(cmd, runtime.Options{Config: cfg, ClientVersion: version(), Auth: mgr, Telemetry: tel, InteractiveLogin: target.login}, who)
	if err != nil {
		return err
	}
	rt := runtime.New(opts)
	defer func() { err = rec.finishInto(cmd.ErrOrStderr(), err) }() // after the shutdown below
	defer shutdownRuntime(rt)
	if err := rec.start(rt); err != nil {
		return err
	}
	var serving *ui.Serving
	if serveAddr != "" {
		gw, err := serveInTUI(cmd, rt, cfg, serveAddr, tel, tlog)
		if err != nil {
			return err
		}
		defer gw.stop() // before the runtime shuts down
		serving = &ui.Serving{Gateway: gw.g, URL: gw.url, Token: gw.token}
	}
	if logOut != nil {
		defer logEvents(rt, logOut)()
	}
	// MCP Apps open from a result (a) on a loopback port of their own,
	// which stops before the servers do.
	notices := &ui.AppNotices{}
	apps := apphost.New(rt, apphost.Options{Version: version(), OnNotice: notices.Report})
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = apps.Close(cctx)
	}()
	var sources []string
	for _, f := range cfg.Files {
		sources = append(sources, f.Path)
	}
	files := configFiles(cmd)
	// current is the configuration as last read, so c checks a server
	// with the settings r reloaded.
	var mu sync.Mutex
	current := cfg
	reload := func() (*config.Config, error) {
		c, err := load(files, true)
		if err == nil {
			mu.Lock()
			current = c
			mu.Unlock()
		}
		return c, err
	}
	var manage *ui.Manage
	if isAdHoc {
		reload = nil
	} else {
		reg, _ := registry.New(registryURL(""), nil)
		manage = &ui.Manage{
			Files:    manageFiles(cmd),
			Try:      func(ctx context.Context, s config.Server) (string, error) { return tryServer(ctx, s, opts) },
			Registry: reg,
			Trusted:  ts.Trusted,
		}
	}
	// The terminal, unless the command was given other streams (tests).
	var in io.Reader
	var out io.Writer
	if r := cmd.InOrStdin(); r != os.Stdin {
		in = r
	}
	if w := cmd.OutOrStdout(); w != os.Stdout {
		out = w
	}
	err = ui.Run(ctx, ui.Options{
		Runtime:       rt,
		Input:         in,
		Output:        out,
		Recording:     tuiRecording(rec, cfg),
		Serving:       serving,
		Sources:       sources,
		EnableOnStart: enable,
		Reload:        reload,
		Manage:        manage,
		Auth:          mgr,
		LoginURLs:     urls,
		Apps:          apps,
		AppNotices:    notices,
		AuthTarget: func(server string) (auth.Target, bool) {
			mu.Lock()
			defer mu.Unlock()
			srv, ok := current.Server(server)
			return auth.TargetOf(srv), ok
		},
		Config:    cfg,
		Untrusted: cfg.Untrusted(ts),
		Trust:     ts.Trust,
		Pending:   func(c *config.Config) []config.File { return c.Untrusted(ts) },
		// The check runs its own copy of the server beside the session.
		Check: func(ctx context.Context, server string, progress func(check.Item)) (check.Report, error) {
			mu.Lock()
			srv, ok := current.Server(server)
			file, _ := current.File(srv.Source)
			mu.Unlock()
			if !ok {
				return check.Report{}, fmt.Errorf("checking %q: no such server in the configuration", server)
			}
			// The check runs the server's command: never from a file whose
			// content is not approved (the person may have said no).
			if !ts.Trusted(file) {
				return check.Report{}, fmt.Errorf("checking %q: %s is not approved; approve it first (m, or r after a change)", server, srv.Source)
			}
			if srv.Invalid != nil {
				return check.Report{}, fmt.Errorf("checking %q: its configuration is invalid: %w", server, srv.Invalid)
			}
			return check.Run(ctx, srv, tuiCheckOptions(opts), progress), nil
		},
	})
	if err != nil {
		return withCode(ExitConnection, err)
	}
	return nil
}

// logEvents writes the runtime's events to path, one JSON object a line:
// under the TUI nothing else may write to the terminal, and a file is
// where a person looks afterwards.
func logEvents(rt *runtime.Controller, f *os.File) func() {
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 14})
	done := make(chan struct{})
	go func() {
		defer close(done)
		enc := json.NewEncoder(f)
		for e := range events {
			switch e.(type) {
			case runtime.TrafficFrame, runtime.AppMessage:
				continue // the Traffic tab shows frames; the log keeps what happened
			}
			if p, ok := e.(runtime.Published); ok {
				p.Snapshot = nil
				e = p
			}
			_ = enc.Encode(struct {
				Time  time.Time     `json:"time"`
				Type  string        `json:"type"`
				Event runtime.Event `json:"event"`
			}{e.Header().Time, fmt.Sprintf("%T", e), e})
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// tuiCheckOptions are the options of the TUI's check (c): it declares
// sampling as the TUI does (its dialog answers), so the server lists the
// tools the Tools tab shows; the copy's requests are declined, no person
// being there to answer them.
func tuiCheckOptions(session runtime.Options) check.Options {
	co := checkOptions(session)
	co.Sampler = runtime.DeclineSampler{}
	return co
}
