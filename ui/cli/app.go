package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/runtime/apphost"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/present"
)

func newAppCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "app",
		Short: "MCP Apps: open the interactive UI a tool ships",
		Long: `app works with MCP Apps (the io.modelcontextprotocol/ui extension): tools
whose _meta.ui.resourceUri names a ui:// HTML resource that a host renders
beside their results. mcpdeck tools marks them; mcpdeck check verifies them.`,
	}
	cmd.AddCommand(newAppOpenCmd())
	return cmd
}

// appFlags are app open's own flags.
type appFlags struct {
	addr       string
	noBrowser  bool
	timeout    time.Duration
	noValidate bool
	record     recordFlags
}

func newAppOpenCmd() *cobra.Command {
	var tf targetFlags
	var af appFlags
	cmd := &cobra.Command{
		Use:   "open SERVER TOOL [ARGS_JSON | - | @FILE]",
		Short: "Call a tool and open its MCP App in the browser",
		Long: `open starts SERVER (or the ad-hoc server of --url or --stdio, in which case
SERVER is left out), calls TOOL with the arguments (as mcpdeck call does),
reads the tool's ui:// resource and serves it on a loopback port with a
one-time link, which it prints on stdout and opens with $BROWSER (else
xdg-open, or open on macOS). It then waits, the app live, until ctrl+c.

The page runs the app's HTML in an iframe with sandbox="allow-scripts" (an
origin of its own) under a Content-Security-Policy built from the
resource's _meta.ui.csp, and relays the MCP Apps bridge to mcpdeck: the
handshake, the tool's input and result, the app's tools/call (only to
tools of the same server whose visibility includes "app") and
resources/read, proxied to the live connection. When the app asks to open
a link, the page asks you and this command says so on stderr. Every bridge
message is recorded with --record.

The link opens once (a reload of the same tab keeps working); the port
stops with mcpdeck. Over SSH, forward the port and open the link on your
machine: ssh -L PORT:127.0.0.1:PORT HOST.

Exit status: 0 after ctrl+c; 1 the tool returned isError (the app still
opens: it shows the error); 2 usage error, or the tool has no app;
3 connection or protocol failure (the resource does not read as an app);
4 the call timed out.`,
		Example: `  mcpdeck app open basic get-time
  mcpdeck app open --stdio 'npx -y @modelcontextprotocol/server-basic-vanillajs --stdio' get-time
  BROWSER=firefox mcpdeck app open pdf display_pdf '{"url":"https://arxiv.org/pdf/1706.03762"}'`,
		Args:              cobra.RangeArgs(1, 3),
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Tools }),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAppOpen(cmd, &tf, &af, args)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.StringVar(&af.addr, "addr", "127.0.0.1:0", "serve the app's page at `ADDR`, a loopback address (port 0: any free port)")
	fl.BoolVar(&af.noBrowser, "no-browser", false, "only print the link; open it yourself")
	fl.DurationVar(&af.timeout, "timeout", 0, "give up on the tool call after `D` (default: the server's call timeout)")
	fl.BoolVar(&af.noValidate, "no-validate", false, "send arguments that fail the tool's input schema anyway")
	addRecordFlags(cmd, &af.record)
	return cmd
}

func runAppOpen(cmd *cobra.Command, tf *targetFlags, af *appFlags, args []string) (err error) {
	target, names, err := callTargetOf(tf, args, af.timeout)
	if err != nil {
		return err
	}
	if host, _, err := net.SplitHostPort(af.addr); err != nil || (host != "localhost" && !isLoopback(host)) {
		return withCode(ExitUsage, fmt.Errorf("--addr %q: give a loopback HOST:PORT such as 127.0.0.1:8765; the page proxies your servers' tools, so it is served to this machine only (forward the port over SSH)", af.addr))
	}
	arguments, err := readArguments(target.argSpec, cmd.InOrStdin())
	if err != nil {
		return err
	}
	stderr := &lockedWriter{w: cmd.ErrOrStderr()}

	ctx, stop := signalContext(cmd)
	defer stop()
	rec := &recording{flags: &af.record}
	if err := rec.validate(); err != nil {
		return err
	}
	defer func() { err = rec.finishInto(cmd.ErrOrStderr(), err) }() // after the shutdown below
	rt, err := openCallTarget(ctx, cmd, tf, target, names, "app open", runtime.Options{}, rec)
	if rt != nil {
		defer shutdownRuntime(rt)
	}
	if err != nil {
		return err
	}
	if err := hasApp(rt.Snapshot(), target.server, target.tool); err != nil {
		return err
	}

	res, err := rt.Call(ctx, runtime.CallRequest{Server: target.server, Tool: target.tool, Arguments: arguments, Timeout: af.timeout, NoValidate: af.noValidate})
	if err != nil {
		return callFailure(ctx, err)
	}
	if res.IsError {
		warnf(stderr, "tool %q on server %q returned an error (isError); its app shows it", target.tool, target.server)
	}

	host := apphost.New(rt, apphost.Options{Addr: af.addr, Version: version(), OnNotice: func(n apphost.Notice) { writeNotice(stderr, n) }})
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = host.Close(cctx) // the views are told first; then the runtime stops
	}()
	app, err := host.Open(ctx, apphost.Request{Server: target.server, Tool: target.tool, Arguments: arguments, Result: res})
	if err != nil {
		if errors.Is(err, mcp.ErrNotApp) {
			return withCode(ExitConnection, err)
		}
		return withCode(exitCodeOf(err), err)
	}
	for _, p := range app.Problems {
		warnf(stderr, "warning: %s", present.Line(p))
	}
	fmt.Fprintln(cmd.OutOrStdout(), app.URL)
	port := ""
	if u, err := url.Parse(app.URL); err == nil {
		port = u.Port()
	}
	fmt.Fprintf(stderr, "mcpdeck: the app of %q (%s, %s) is served at the link above: it opens once; over SSH forward the port (ssh -L %s:127.0.0.1:%s HOST)\n",
		target.tool, present.Line(app.ResourceURI), present.Size(app.Size), port, port)
	if !af.noBrowser {
		if err := auth.OpenBrowser(app.URL); err != nil {
			warnf(stderr, "mcpdeck: %v", err)
		}
	}
	fmt.Fprintln(stderr, "mcpdeck: the app is live; ctrl+c stops it")
	<-ctx.Done()
	if res.IsError {
		return silentExit(ExitToolError)
	}
	return nil
}

// hasApp refuses a tool without an app before it is called.
func hasApp(snap *runtime.Snapshot, server, tool string) error {
	v, _ := snap.Server(server)
	if t, ok := runtime.LookupTool(v.Tools, tool); ok {
		if ui, _ := mcp.ToolUIOf(t.Meta); !ui.HasApp() {
			return withCode(ExitUsage, fmt.Errorf("tool %q of server %q has no MCP App (no _meta.ui.resourceUri); call it with mcpdeck call instead", tool, server))
		}
	}
	return nil
}

// writeNotice tells the person what an open app did.
func writeNotice(w io.Writer, n apphost.Notice) {
	text := present.Line(n.Text)
	switch n.Kind {
	case apphost.NoticePageOpened:
		fmt.Fprintf(w, "mcpdeck: the app's page is open\n")
	case apphost.NoticeInitialized:
		fmt.Fprintf(w, "mcpdeck: the app %s initialized and was given the tool's result\n", text)
	case apphost.NoticeLink:
		fmt.Fprintf(w, "mcpdeck: the app asks to open %s: choose Open or Dismiss in its page\n", present.Line(n.URL))
	case apphost.NoticeLinkOpened:
		fmt.Fprintf(w, "mcpdeck: opened %s\n", present.Line(n.URL))
	case apphost.NoticeLinkRefused:
		fmt.Fprintf(w, "mcpdeck: did not open %s: %s\n", present.Line(n.URL), text)
	case apphost.NoticeLog:
		fmt.Fprintf(w, "mcpdeck: app log %s\n", text)
	default:
		fmt.Fprintf(w, "mcpdeck: %s\n", text)
	}
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// lockedWriter serialises writes: the host's notices come from its own
// goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
