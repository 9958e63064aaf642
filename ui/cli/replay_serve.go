package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
	"mcpdeck/runtime/record"
)

// How `replay --serve` is put together: the recording is a server — this
// very binary, run as `mcpdeck replay FILE --mock-upstream SERVER`, which
// answers on its stdio what the recorded server answered (record.Mock) —
// and mcpdeck serves it to clients as the gateway serves any server,
// transparently: the recorded server's tool names, serverInfo,
// capabilities and instructions, in both protocol eras, over stdio or
// Streamable HTTP. The runtime in between speaks the recorded era to it.

// mockUpstreamFlag runs the recording's answering side on stdio (hidden:
// `replay --serve` starts it).
const mockUpstreamFlag = "mock-upstream"

// mockResultLimit bounds a result the mock serves: well above anything a
// recording holds (frames are cut at 64 KiB), so none is truncated.
const mockResultLimit = 64 << 20

// runServe serves the recording as a mock server.
func runServe(cmd *cobra.Command, rf *replayFlags, rec *record.Recording, path string) error {
	if rf.speed < 0 {
		return withCode(ExitUsage, fmt.Errorf("--speed %g: give 1 for the recorded pace, 2 for twice as fast, 0 for no delays", rf.speed))
	}
	if len(rf.servers) > 1 {
		return withCode(ExitUsage, errors.New("--serve serves one recorded server: give at most one --server"))
	}
	server := ""
	if len(rf.servers) == 1 {
		server = rf.servers[0]
	}
	token, configured := gatewayToken(&config.Config{})
	if rf.http != "" {
		if err := gateway.CheckBind(rf.http, false, token, configured); err != nil {
			return withCode(ExitUsage, fmt.Errorf("--http: %w", err))
		}
	}
	mock, err := record.NewMock(rec, server)
	if errors.Is(err, record.ErrSeveralServers) {
		err = fmt.Errorf("%w with --server", err)
	}
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("serving %s: %w", path, err))
	}
	stderr := cmd.ErrOrStderr()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding mcpdeck's own executable to answer from the recording: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	protocol := "modern"
	if mock.Era == record.EraLegacy {
		protocol = mock.Version
	}
	srv := mockServer(exe, mock.Server, abs, "--"+mockUpstreamFlag, mock.Server, "--speed", strconv.FormatFloat(rf.speed, 'g', -1, 64))
	ctx, stop := signalContext(cmd)
	defer stop()
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}, Elicitor: runtime.DeclineElicitor{},
		ClientVersion: version(), Protocol: protocol, Eras: runtime.NewEraMemory(), LogLevel: "-",
		ResultLimit: mockResultLimit, NoAutoReconnect: true})
	defer shutdownRuntime(rt)
	if err := rt.SetEnabled(ctx, true); err != nil {
		if ctx.Err() != nil {
			return interrupted("replay")
		}
		return withCode(ExitConnection, fmt.Errorf("starting the mock of %q: %w", mock.Server, err))
	}
	if err := serverFailure(rt.Snapshot(), mock.Server); err != nil {
		return err
	}
	ready := make(chan struct{})
	close(ready)
	g := gateway.New(rt, gateway.Options{Version: version(), Ready: ready, Transparent: true})
	defer closeGateway(g)
	what := fmt.Sprintf("mcpdeck replay: serving %q as recorded (%s, %s)", mock.Server, mock.Era, mock.Version)
	if rf.http == "" {
		fmt.Fprintln(stderr, what+" on stdio")
		return serveStdio(ctx, g, cmd)
	}
	srvHTTP, url, err := listenGateway(g, httpServing{addr: rf.http, token: token})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	fmt.Fprintln(stderr, what)
	announce(stderr, "mcpdeck replay", url, token, configured, nil)
	<-ctx.Done()
	closeGateway(g)
	shutdownHTTP(srvHTTP)
	return nil
}

// mockServer is the server that is the recording at path: this binary
// (exe) run as `replay PATH ARGS...`, named name.
func mockServer(exe, name, path string, args ...string) config.Server {
	return config.Server{Name: name, Transport: config.TransportStdio, Command: exe, Args: append([]string{"replay", path}, args...),
		Enabled: true, Scope: config.ScopeExplicit, Source: path,
		StartupTimeout: config.DefaultStartupTimeout, CallTimeout: 10 * time.Minute, PingInterval: config.DefaultPingInterval}
}

// runMockUpstream is the recording's answering side, on stdin and stdout:
// the server `replay --serve` connects to.
func runMockUpstream(cmd *cobra.Command, rf *replayFlags, rec *record.Recording, server string) error {
	mock, err := record.NewMock(rec, server)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	return record.ServeMock(ctx, mock, pollableStdin(cmd.InOrStdin()), cmd.OutOrStdout(), record.MockOptions{Speed: rf.speed})
}

// errServeFlags is the usage error of a flag that needs --serve.
var errServeFlags = errors.New("--http and --speed go with --serve")

// serveFlagsAlone reports a serve-only flag given without --serve.
func (rf *replayFlags) serveFlagsAlone(cmd *cobra.Command) bool {
	return !rf.serve && rf.mockUpstream == "" && (rf.http != "" || cmd.Flags().Changed("speed"))
}
