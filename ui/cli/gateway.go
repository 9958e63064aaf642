package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
	"mcpdeck/runtime/telemetry"
	"mcpdeck/ui/present"
)

// gatewayFlags are gateway's own flags.
type gatewayFlags struct {
	http        string
	allowRemote bool
	control     string
	legacySSE   bool
	audit       string
	record      recordFlags
	telemetry   telemetryFlags
}

func newGatewayCmd() *cobra.Command {
	var tf targetFlags
	var gf gatewayFlags
	cmd := &cobra.Command{
		Use:   "gateway [SERVER]...",
		Short: "Serve the enabled servers, live, to other MCP clients (stdio, or --http)",
		Long: `gateway starts the enabled servers (or the named ones, or the ad-hoc one
given with --url or --stdio) and serves them as one MCP server: tools and
prompts as server__name, resources under their own URIs. Clients of both
protocol eras are served (2025-11-25 and earlier through initialize, and
2026-07-28). One process per server, however many clients attach.

Without --http it speaks MCP on its own stdin and stdout, for a client that
starts it (Claude Code, VS Code, Cursor); diagnostics go to stderr. It ends
when the client closes stdin.

With --http ADDR it serves Streamable HTTP at http://ADDR/mcp to any number
of clients until interrupted. Every request needs the bearer token
(Authorization: Bearer TOKEN): MCPDECK_GATEWAY_TOKEN, else gateway.token
from mcp.json, else one generated now and printed once on stderr. Browser
origins other than loopback ones are refused unless gateway.allowedOrigins
lists them. ADDR must be a loopback address unless --allow-remote is given,
and then the token must be configured, not generated.

Calls that the gateway block marks for approval (approve patterns on
servers and tools, approveDestructive) wait for the operator: the
gateway opens a control socket and prints each waiting call on stderr;
answer from another terminal with mcpdeck gateway approve ID or deny ID
(mcpdeck gateway pending lists them). A call nobody answers within
approvalTimeout (default 2m) is refused, naming the rule. Every decision
is logged on stderr and recorded (--record) with who decided.

The "gateway" block of mcp.json chooses what each client may reach (allow
and deny by glob on servers, tools and prompts), the per-request timeout
(default 60s) and how many requests a client may have in flight (default
16); see config/doc.go. Questions a server asks during a client's call
(elicitation, sampling, roots) go to that client when it declared the
capability; the gateway declines those it cannot pass on (--sampling FILE
answers sampling with a canned reply instead).

--record FILE records the session (every frame the gateway's clients
cause between mcpdeck and the servers, state changes, logs) for mcpdeck
replay. --metrics ADDR serves Prometheus metrics at http://ADDR/metrics,
including mcpdeck_gateway_clients and mcpdeck_gateway_calls_total; traces
go over OTLP/HTTP to --otlp URL or where OTEL_EXPORTER_OTLP_ENDPOINT says,
and a client's trace context (traceparent in params._meta) is continued:
the gateway's span is a child of the client's, and the server receives
the same trace.`,
		Example: `  mcpdeck gateway
  mcpdeck gateway --http 127.0.0.1:8765
  mcpdeck gateway --http 127.0.0.1:8765 --record gateway.jsonl --metrics 127.0.0.1:9464
  mcpdeck gateway pending
  mcpdeck gateway approve 4242-1
  MCPDECK_GATEWAY_TOKEN=... mcpdeck gateway --http 0.0.0.0:8765 --allow-remote`,
		RunE: func(cmd *cobra.Command, args []string) error { return runGateway(cmd, &tf, &gf, args) },
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.StringVar(&gf.http, "http", "", "serve Streamable HTTP on `ADDR` (host:port; port 0 picks a free one) instead of stdio")
	fl.BoolVar(&gf.allowRemote, "allow-remote", false, "allow --http on a non-loopback address (needs a configured token, or gateway.auth)")
	fl.StringVar(&gf.audit, "audit", "", "append a JSON line per call to `FILE` (rotated by size; see gateway.audit)")
	fl.BoolVar(&gf.legacySSE, "legacy-sse", false, "also serve the deprecated HTTP+SSE transport (GET /sse, POST /message) to old clients")
	fl.StringVar(&gf.control, "control", "", "open the control socket (where operators answer approvals) at `PATH` (default: $XDG_RUNTIME_DIR/mcpdeck/gateway-PID.sock, or the state directory's run/)")
	addSamplingFlag(cmd, "decline")
	cmd.AddCommand(newGatewayPendingCmd(), newGatewayDecideCmd("approve"), newGatewayDecideCmd("deny"))
	addRecordFlags(cmd, &gf.record)
	addTelemetryFlags(fl, &gf.telemetry)
	return cmd
}

// envGatewayParent marks the processes a gateway starts. A gateway that
// finds it set was started as a server of another gateway — a project's
// mcp.json that lists `mcpdeck gateway` and is read by that very gateway —
// and refuses, rather than start itself over and over.
const envGatewayParent = runtime.GatewayParentEnv

func runGateway(cmd *cobra.Command, tf *targetFlags, gf *gatewayFlags, names []string) (err error) {
	if os.Getenv(envGatewayParent) != "" {
		return withCode(ExitUsage, errors.New("mcpdeck gateway was started as a server of another mcpdeck gateway: its configuration lists the gateway itself; remove that entry, or start the gateway with --config naming only the servers it should serve"))
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	stderr := &lockedWriter{w: cmd.ErrOrStderr()} // the servers' news comes from a goroutine of its own (followServers)
	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return err
	}
	markChildren(cfg)
	if len(cfg.Servers) == 0 {
		fmt.Fprintf(stderr, "mcpdeck gateway: no enabled server in %s; clients will see nothing until one is configured\n", sourcesOf(cfg))
	}
	if gf.legacySSE && gf.http == "" {
		return withCode(ExitUsage, errors.New("--legacy-sse serves HTTP+SSE next to Streamable HTTP: give --http ADDR too"))
	}
	token, configured := gatewayToken(cfg)
	if gf.http != "" {
		if err := gateway.CheckBind(gf.http, gf.allowRemote, token, configured); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	// A headless gateway declines the elicitations it cannot pass to the
	// client that caused them; declaring elicitation at all lets servers
	// ask the clients that can answer.
	rec := &recording{flags: &gf.record, cfg: cfg}
	if err := rec.validate(); err != nil {
		return err
	}
	// Telemetry's own diagnostics go to stderr as text (where /metrics is
	// served, where traces go, export failures): stdout may be the
	// client's stream.
	tel, err := gf.telemetry.startTelemetry(ctx, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err != nil {
		return err
	}
	defer shutdownTelemetry(tel) // after the runtime's shutdown below: its last spans are flushed
	opts, err := gatewayRuntimeOptions(cmd, runtime.Options{Config: cfg, ClientVersion: version(),
		Auth: newAuthManager(cmd, 0), InteractiveLogin: tf.login, Telemetry: tel}, answeredHeadless)
	if err != nil {
		return err
	}
	rt := runtime.New(opts)
	follow := followServers(ctx, rt, stderr)
	defer follow.stop()                                  // after the shutdown below: the news before it is said
	defer func() { err = rec.finishInto(stderr, err) }() // after the shutdown below, so the teardown is in the file
	defer shutdownRuntime(rt)
	// Recording starts before anything else, so the servers' start is in
	// the file, and every frame the clients cause after it.
	if err := rec.start(rt); err != nil {
		return err
	}
	ready := make(chan struct{})
	enabled := make(chan struct{})
	go func() {
		defer close(enabled)
		err := rt.SetEnabled(ctx, true)
		close(ready)
		if err == nil {
			follow.from(time.Now())
			reportServers(stderr, rt.Snapshot())
		}
	}()
	g, audit, err := newServedGateway(rt, cfg, tel, gatewayFace{ready: ready, auditFile: gf.audit, onAuditError: func(err error) {
		fmt.Fprintf(stderr, "mcpdeck gateway: %v (calls go on unaudited until a write succeeds)\n", err)
	}})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer audit.Close() // after the gateway closed: its last calls are in
	defer func() {
		stop() // an enable still under way gives up
		<-enabled
		closeGateway(g)
	}()
	stopControl, err := startControl(ctx, g, rt, cfg, gf.control, stderr)
	if err != nil {
		return err
	}
	defer stopControl() // before the gateway closes: no operator answers after it

	if gf.http == "" {
		return serveStdio(ctx, g, cmd)
	}
	srv, url, err := listenGateway(g, httpServing{addr: gf.http, token: token, gw: cfg.Gateway, legacySSE: gf.legacySSE})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	announce(stderr, "mcpdeck gateway", url, token, configured, cfg.Gateway)
	warnWeakToken(stderr, "mcpdeck gateway", token, configured)
	if gf.legacySSE {
		fmt.Fprintf(stderr, "mcpdeck gateway: serving the deprecated HTTP+SSE transport at %s (old clients)\n", strings.TrimSuffix(url, "/mcp")+"/sse")
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "mcpdeck gateway: stopping")
	// Streams end first, so the HTTP server has nothing left to wait for.
	closeGateway(g)
	shutdownHTTP(srv)
	return nil
}

// announce says on stderr where the gateway is and, once, a generated token.
func announce(w io.Writer, who, url, token string, configured bool, gw *config.Gateway) {
	fmt.Fprintf(w, "%s: serving MCP (Streamable HTTP) at %s\n", who, url)
	if gw != nil && gw.Auth != nil {
		fmt.Fprintf(w, "%s: clients log in at %s (OAuth; resource metadata at %s)\n", who, gw.Auth.Issuer, metadataURL(gw.Auth, url))
		return
	}
	if configured {
		fmt.Fprintf(w, "%s: clients must send the configured token (%s or gateway.token)\n", who, gateway.EnvToken)
		return
	}
	fmt.Fprintf(w, "%s: token for this run (send Authorization: Bearer TOKEN): %s\n", who, token)
}

// tuiGateway is the HTTP gateway the TUI runs (--serve): the gateway the
// Clients tab shows, its endpoint and token, and how to stop it.
type tuiGateway struct {
	g     *gateway.Gateway
	url   string
	token string
	stop  func()
}

// gatewayAnswers says who answers, on a runtime whose servers a gateway
// serves to its clients, what a server asks during a call that the
// calling client cannot answer.
type gatewayAnswers int

const (
	// noGateway: the runtime serves no gateway (the TUI without --serve).
	noGateway gatewayAnswers = iota
	// answeredHeadless: `mcpdeck gateway`: elicitations are declined,
	// sampling as --sampling says (each answer logged as one of the
	// gateway's decisions).
	answeredHeadless
	// answeredByOperator: `mcpdeck --serve`: the TUI's dialogs, where the
	// operator answers, URL-mode elicitations included, as for the
	// operator's own calls.
	answeredByOperator
)

// gatewayRuntimeOptions are the runtime options of `mcpdeck gateway` and
// of the TUI (`mcpdeck --serve`, or none), with the session flags applied
// (sessionOptions): one function, so that both declare to their servers
// what their gateway's clients can answer (runtime.Options.Relay: roots
// and URL-mode elicitation) and pass a server's questions to the client
// whose call caused them the same way; only who answers for a client
// that cannot differs (who).
func gatewayRuntimeOptions(cmd *cobra.Command, opts runtime.Options, who gatewayAnswers) (runtime.Options, error) {
	switch who {
	case answeredHeadless:
		sampler, err := plainSamplerFlag(cmd)
		if err != nil {
			return opts, err
		}
		opts.Elicitor, opts.Sampler, opts.Relay = runtime.DeclineElicitor{}, sampler, true
	case answeredByOperator:
		// The TUI plugs in its dialogs (ui.Attach) as Elicitor and Sampler.
		opts.Relay, opts.Operator = true, true
	}
	return sessionOptions(cmd, opts)
}

// gatewayFace is what differs between the two faces that serve a
// gateway, `mcpdeck gateway` and the TUI's `--serve`: everything else
// they build alike (newServedGateway).
type gatewayFace struct {
	// ready holds requests until the first enable settled (headless);
	// nil under the TUI, whose MCP may be off, which its clients are told.
	ready <-chan struct{}
	// auditFile is --audit FILE (headless), over gateway.audit.file.
	auditFile string
	// onAuditError hears a failed audit write: stderr (headless), the
	// --log file (the TUI, which owns the terminal).
	onAuditError func(error)
}

// newServedGateway is the one construction of the gateway both faces
// serve, with the runtime built by gatewayRuntimeOptions: the gateway
// block of the configuration (policy, limits, approvals), its audit log
// (gateway.audit, or --audit), its telemetry. The caller closes the
// gateway, then the audit log.
func newServedGateway(rt *runtime.Controller, cfg *config.Config, tel *telemetry.Telemetry, face gatewayFace) (*gateway.Gateway, *gateway.Audit, error) {
	audit, err := openAudit(cfg, face.auditFile, face.onAuditError)
	if err != nil {
		return nil, nil, err
	}
	g := gateway.New(rt, gateway.Options{Config: cfg.Gateway, Version: version(), Ready: face.ready, Audit: audit})
	tel.SetGatewaySource(gatewayStats(g))
	return g, audit, nil
}

// serveInTUI runs the HTTP gateway on the TUI's runtime (--serve ADDR):
// an agent works with the servers the operator is looking at. What it
// prints goes to stderr before the TUI takes the screen; the TUI shows the
// endpoint and copies the token. tel, when on, reports the gateway's
// clients and calls; log hears what goes wrong later (a failed audit
// write), the terminal being the TUI's.
func serveInTUI(cmd *cobra.Command, rt *runtime.Controller, cfg *config.Config, addr string, tel *telemetry.Telemetry, log *slog.Logger) (*tuiGateway, error) {
	token, configured := gatewayToken(cfg)
	if err := gateway.CheckBind(addr, false, token, configured); err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--serve: %w", err))
	}
	g, audit, err := newServedGateway(rt, cfg, tel, gatewayFace{onAuditError: func(err error) {
		log.Error("gateway audit: calls go on unaudited until a write succeeds", "error", err.Error())
	}})
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--serve: %w", err))
	}
	srv, url, err := listenGateway(g, httpServing{addr: addr, token: token, gw: cfg.Gateway})
	if err != nil {
		closeGateway(g)
		audit.Close()
		return nil, withCode(ExitUsage, fmt.Errorf("--serve: %w", err))
	}
	announce(cmd.ErrOrStderr(), "mcpdeck", url, token, configured, cfg.Gateway)
	warnWeakToken(cmd.ErrOrStderr(), "mcpdeck", token, configured)
	return &tuiGateway{g: g, url: url, token: token, stop: func() {
		closeGateway(g)
		shutdownHTTP(srv)
		audit.Close() // after the gateway closed: its last calls are in
	}}, nil
}

// gatewayStats reports g to telemetry at each collection (a scrape).
func gatewayStats(g *gateway.Gateway) func() telemetry.GatewayStats {
	return func() telemetry.GatewayStats {
		return telemetry.GatewayStats{Clients: len(g.Clients()), Calls: g.Calls()}
	}
}

// markChildren sets envGatewayParent in the environment of every stdio
// server the gateway starts (they get only their configured environment).
func markChildren(cfg *config.Config) {
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Transport != config.TransportStdio {
			continue
		}
		env := maps.Clone(s.Env)
		if env == nil {
			env = map[string]string{}
		}
		env[envGatewayParent] = strconv.Itoa(os.Getpid())
		s.Env = env
	}
}

// gatewayToken returns the HTTP gateway's token and whether it was
// configured (MCPDECK_GATEWAY_TOKEN, else gateway.token) rather than
// generated for this run.
// The token is a secret: it is scrubbed from everything mcpdeck shows and
// records.
func gatewayToken(cfg *config.Config) (token string, configured bool) {
	if cfg.Gateway != nil && cfg.Gateway.Auth != nil {
		return "", true // OAuth instead: access tokens of gateway.auth.issuer
	}
	defer func() { config.AddSecret(token) }()
	if t := os.Getenv(gateway.EnvToken); t != "" {
		return t, true
	}
	if cfg.Gateway != nil && cfg.Gateway.Token != "" {
		return cfg.Gateway.Token, true
	}
	return gateway.NewToken(), false
}

// warnWeakToken says on stderr that a configured token is weak; on
// loopback it is still accepted (other machines cannot reach it), but other
// users of this machine can.
func warnWeakToken(w io.Writer, who, token string, configured bool) {
	if !configured {
		return
	}
	if err := gateway.CheckToken(token); err != nil {
		fmt.Fprintf(w, "%s: warning: %v\n", who, err)
	}
}

// listenGateway serves g's Streamable HTTP endpoint at /mcp on hs.addr
// (with the team settings: OAuth's metadata, the legacy HTTP+SSE
// endpoints; gateway_team.go) and returns the server and the endpoint URL.
func listenGateway(g *gateway.Gateway, hs httpServing) (*http.Server, string, error) {
	l, err := net.Listen("tcp", hs.addr)
	if err != nil {
		return nil, "", fmt.Errorf("serving the gateway on %s: %w", hs.addr, err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	opts := gateway.HTTPOptions{Token: hs.token, LoopbackOnly: gateway.IsLoopback(hs.addr)}
	if hs.gw != nil {
		opts.AllowedOrigins = hs.gw.AllowedOrigins
	}
	mux := http.NewServeMux()
	if err := hs.mountTeam(mux, g, &opts, url); err != nil {
		l.Close()
		return nil, "", err
	}
	mux.Handle("/mcp", g.Handler(opts))
	srv := gateway.NewHTTPServer(mux)
	go func() { _ = srv.Serve(gateway.Listener(l, 0)) }()
	return srv, url, nil
}

// serveStdio serves the one client on stdin and stdout until it closes
// stdin or a signal arrives.
func serveStdio(ctx context.Context, g *gateway.Gateway, cmd *cobra.Command) error {
	in := pollableStdin(cmd.InOrStdin())
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(ctx, in, cmd.OutOrStdout()) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// A read of stdin that cannot be interrupted must not hold the
		// teardown of the servers: wait briefly, then go on.
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
		return nil
	}
}

// reportServers says on stderr which servers are served.
func reportServers(w io.Writer, snap *runtime.Snapshot) {
	for _, s := range snap.Servers {
		if s.State.Live() {
			fmt.Fprintf(w, "mcpdeck gateway: %s ready (%d tools)\n", s.Name, len(s.Tools))
			continue
		}
		reason := s.Reason
		if s.LastError != nil {
			reason = s.LastError.Detail() // the line names the server
		}
		fmt.Fprintf(w, "mcpdeck gateway: %s %s: %s\n", s.Name, present.StateSentence(s.State), reason)
	}
}

// serverNews says on stderr what happens to the served servers after the
// first report (reportServers): a server that fails, degrades or needs a
// login, and one that is ready again, as a crashed server is once its
// automatic reconnect succeeds. Without it a headless gateway's operator
// saw its servers only as they started: a crash, and the tools withdrawn
// from every client, left no line.
type serverNews struct {
	since  atomic.Int64 // UnixNano of the first report; 0 until then
	events <-chan []runtime.Event
	cancel func()
	done   chan struct{}
}

// followServers subscribes before MCP is enabled, so nothing after the
// first report is missed; from says when that report was taken, and
// events before it are the report's. A change while the gateway stops
// (ctx done) is the teardown's, not news.
func followServers(ctx context.Context, rt *runtime.Controller, w io.Writer) *serverNews {
	ch, cancel := rt.SubscribeBatches(runtime.SubscribeOptions{Buffer: 1024})
	n := &serverNews{events: ch, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(n.done)
		down := map[string]bool{} // said to have failed, not yet to be back
		for batch := range ch {
			since := n.since.Load()
			for _, ev := range batch {
				sc, ok := ev.(runtime.StateChanged)
				if !ok || since == 0 || sc.Time.UnixNano() < since || ctx.Err() != nil {
					continue
				}
				switch {
				case sc.To == runtime.StateReady && down[sc.Server]:
					delete(down, sc.Server)
					fmt.Fprintf(w, "mcpdeck gateway: %s is ready again\n", sc.Server)
				case sc.To == runtime.StateFailed || sc.To == runtime.StateDegraded || sc.To == runtime.StateNeedsLogin:
					down[sc.Server] = true
					fmt.Fprintf(w, "mcpdeck gateway: %s %s: %s\n", sc.Server, present.StateSentence(sc.To), present.Line(sc.Reason))
				}
			}
		}
	}()
	return n
}

// from starts the news at t, the time of the first report.
func (n *serverNews) from(t time.Time) { n.since.Store(t.UnixNano()) }

// stop ends the subscription once what was published before is said.
func (n *serverNews) stop() {
	n.cancel()
	<-n.done
}

// closeGateway ends the clients cleanly, bounded.
func closeGateway(g *gateway.Gateway) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = g.Close(ctx)
}

func shutdownHTTP(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
	}
}
