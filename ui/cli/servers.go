package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// pingTimeout bounds the one ping servers sends to each ready server; a
// server that takes longer is reported, not waited for.
const pingTimeout = 5 * time.Second

// signalContext is the context of every command that starts servers: an
// interrupt, SIGTERM or SIGHUP cancels it, and the command then tears its
// servers down before exiting instead of leaving them behind.
func signalContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), shutdownSignals...)
}

// interrupted reports a command ended by a signal, with the timeout exit code.
func interrupted(what string) error {
	return withCode(ExitTimeout, fmt.Errorf("%s cancelled by a signal; every server was stopped", what))
}

// codeOf returns the exit code an error from withCode carries, else the
// connection failure code: an unexplained failure is the server's.
func codeOf(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitConnection
}

func newServersCmd() *cobra.Command {
	var tf targetFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "servers [SERVER]...",
		Short: "Connect to servers, report each one's state, disconnect",
		Long: `servers connects to every enabled server (or the named ones, or the ad-hoc
server given with --url or --stdio), waits until each is ready or failed,
pings the ready ones once, prints one row per server and stops them all.
A configured server that is disabled ("disabled": true, or switched off
with mcpdeck disable) is listed too, with state "disabled", and not
started; naming it starts it.

Columns: NAME, STATE (ready, failed, ...), TRANSPORT, PROTOCOL (the era
and revision negotiated: "modern 2026-07-28" or "legacy 2025-11-25"),
DECIDED (how the era was decided: "probed: discover answered", "probed:
2026-07-28 refused, session protocol" (the server answered the 2026-07-28
probe with an error, so mcpdeck speaks the session protocol), "probed:
timed out" (initialize answered, server/discover did not), "remembered" (from an earlier run, in the state directory's
eras.json), "pinned" (--protocol or "protocol" in mcp.json allows one
era), "switched: late answer" (server/discover answered after the
fallback had sent initialize)), TOOLS (how many), PING (the round trip
of one health probe: ping, or server/discover on a modern server, which
has no ping), VERSION (serverInfo name and version) and ERROR (why a
server failed, with a hint). Tools a modern HTTP server listed with
invalid x-mcp-header annotations are left out and named on stderr.

Exit status: 0 when every server is ready; 2 when one's configuration is
invalid (or needs an input only VS Code gives) or for a usage error; else
3 when one failed or needs a login; else 4 when one was not ready within
its startup timeout, or when interrupted.

--json prints one object (keys in this order, always present unless noted):

  {"servers": [{
     "name": "demo", "state": "ready", "transport": "stdio",
     "target": "mcpdeck demo-server", "source": "/path/mcp.json",
     "pid": 1234,                      // 0 for remote servers
     "tools": 4, "prompts": 1, "resources": 1,
     "pingMs": 0.41,                   // null when not pinged
     "pingMethod": "ping",             // or "server/discover"; only when pinged
     "pingError": "...",               // only when the ping failed
     "serverInfo": {"name": "...", "title": "...", "version": "..."},
     "era": "legacy",                  // "modern", "legacy"; "unknown" when not connected
     "protocolVersion": "2025-11-25",
     "eraDecision": "probed-discover", // how the era was decided: probed-discover, probed-legacy-error,
                                       // probed-timeout, remembered, pinned, switched; only when connected
     "eraReason": "...",               // the same in words, with the detail; only when connected
     "droppedTools": [{"name": "...", "reason": "..."}],  // only when some were dropped
     "fallback": "...",                // only when HTTP fell back to SSE
     "reason": "...", "error": "..."   // only when the server failed
  }]}`,
		Example: `  mcpdeck servers
  mcpdeck servers --json demo
  mcpdeck servers --stdio 'npx -y @modelcontextprotocol/server-everything'`,
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			tf.withDisabled = true // every configured server is listed
			return runServers(cmd, &tf, args, asJSON)
		},
	}
	addTargetFlags(cmd, &tf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print stable JSON (shape in --help)")
	return cmd
}

// serverStatusJSON is one server of servers --json.
type serverStatusJSON struct {
	Name            string                 `json:"name"`
	State           string                 `json:"state"`
	Transport       string                 `json:"transport"`
	Target          string                 `json:"target"`
	Source          string                 `json:"source"`
	PID             int                    `json:"pid"`
	Tools           int                    `json:"tools"`
	Prompts         int                    `json:"prompts"`
	Resources       int                    `json:"resources"`
	PingMs          *float64               `json:"pingMs"`
	PingMethod      string                 `json:"pingMethod,omitempty"`
	PingError       string                 `json:"pingError,omitempty"`
	ServerInfo      runtime.Implementation `json:"serverInfo"`
	Era             string                 `json:"era"`
	ProtocolVersion string                 `json:"protocolVersion"`
	EraDecision     string                 `json:"eraDecision,omitempty"`
	EraReason       string                 `json:"eraReason,omitempty"`
	DroppedTools    []runtime.DroppedTool  `json:"droppedTools,omitempty"`
	Fallback        string                 `json:"fallback,omitempty"`
	Reason          string                 `json:"reason,omitempty"`
	Error           string                 `json:"error,omitempty"`

	decision runtime.EraDecision // EraDecision, for the table's words
	hint     string              // what to do about Error (present.Hint), for stderr
}

// serversOutput is the whole of servers --json.
type serversOutput struct {
	Servers []serverStatusJSON `json:"servers"`
}

// pingResult is the outcome of the one health probe servers sends a server.
type pingResult struct {
	method string
	took   time.Duration
	err    error
}

func runServers(cmd *cobra.Command, tf *targetFlags, names []string, asJSON bool) error {
	return withTargets(cmd, tf, names, "servers", func(ctx context.Context, rt *runtime.Controller) error {
		snap := rt.Snapshot()
		pings := pingAll(ctx, rt, snap)
		if ctx.Err() != nil {
			return interrupted("servers")
		}

		out := serversOutput{Servers: []serverStatusJSON{}}
		for _, v := range snap.Servers {
			out.Servers = append(out.Servers, serverStatus(v, pings[v.Name]))
		}
		if asJSON {
			if err := present.WriteJSON(cmd.OutOrStdout(), out); err != nil {
				return err
			}
		} else {
			printServers(cmd, out.Servers)
		}
		// Each failure is on stderr already, in full (printServers).
		if _, code := failures(snap); code != ExitOK {
			return silentExit(code)
		}
		return nil
	})
}

// pingAll pings every live server once, concurrently, so a slow server
// delays the report by its own latency only.
func pingAll(ctx context.Context, rt *runtime.Controller, snap *runtime.Snapshot) map[string]*pingResult {
	out := map[string]*pingResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, v := range snap.Servers {
		if !v.State.Live() {
			continue
		}
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			defer cancel()
			method, took, err := rt.Ping(pctx, name)
			r := &pingResult{method: method, took: took, err: err}
			mu.Lock()
			out[name] = r
			mu.Unlock()
		}(v.Name)
	}
	wg.Wait()
	return out
}

func serverStatus(v runtime.ServerSnapshot, ping *pingResult) serverStatusJSON {
	s := serverStatusJSON{
		Name: v.Name, State: v.State.Name(), Transport: v.Transport.String(), Target: v.Target, Source: v.Source,
		PID: v.PID, Tools: len(v.Tools), Prompts: len(v.Prompts), Resources: len(v.Resources),
		ServerInfo: v.ServerInfo, Era: v.Era.String(), ProtocolVersion: v.ProtocolVersion, EraDecision: v.EraDecision.String(), EraReason: v.EraReason,
		DroppedTools: v.DroppedTools, Fallback: v.Fallback, decision: v.EraDecision,
	}
	if ping != nil {
		s.PingMethod = ping.method
		if ping.err != nil {
			s.PingError = ping.err.Error()
		} else {
			ms := float64(ping.took.Microseconds()) / 1000
			s.PingMs = &ms
		}
	}
	if v.State == runtime.StateInvalid {
		s.State, s.Error = "invalid", present.Line(v.Note)
		return s
	}
	if !v.State.Live() {
		s.Reason = v.Reason
		if v.LastError != nil {
			s.Error = v.LastError.Detail() // the row names the server
			s.hint = present.Hint(v.LastError, present.CLI)
		} else if v.Note != "" {
			s.Error = v.Note
		}
	}
	return s
}

// stateSentence says a state column's word after a server's name.
func stateSentence(word string) string {
	var st runtime.State
	if st.UnmarshalText([]byte(word)) != nil {
		return "is " + word
	}
	return present.StateSentence(st)
}

// printServers prints the table, then each failure in full on stderr: the
// table cell is cut to stay readable, the diagnostic must not be.
func printServers(cmd *cobra.Command, servers []serverStatusJSON) {
	rows := make([][]string, 0, len(servers))
	for _, s := range servers {
		ping := "-"
		switch {
		case s.PingMs != nil:
			ping = strconv.FormatFloat(*s.PingMs, 'f', 1, 64) + "ms"
		case s.PingError != "":
			ping = "failed"
		}
		ver := "-"
		if s.ServerInfo.Name != "" || s.ServerInfo.Version != "" {
			ver = s.ServerInfo.Name + " " + s.ServerInfo.Version
		}
		tools, proto := "-", "-"
		if s.State == runtime.StateReady.Name() || s.State == runtime.StateDegraded.Name() {
			tools = strconv.Itoa(s.Tools)
		}
		if s.ProtocolVersion != "" {
			proto = s.Era + " " + s.ProtocolVersion
		}
		errText := s.Error
		if errText == "" {
			errText = s.PingError
		}
		rows = append(rows, []string{s.Name, present.StateWord(s.State), s.Transport, proto, present.OrDash(present.EraDecision(s.decision)), tools, ping, ver, present.TruncateWords(present.Line(errText), 60)})
	}
	printTable(cmd.OutOrStdout(), []string{"NAME", "STATE", "TRANSPORT", "PROTOCOL", "DECIDED", "TOOLS", "PING", "VERSION", "ERROR"}, rows)
	for _, s := range servers {
		for _, d := range s.DroppedTools {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: server %q: left out tool %q: %s\n", s.Name, d.Name, d.Reason)
		}
		if s.Error != "" && s.hint != "" {
			warnf(cmd.ErrOrStderr(), "server %q %s: %s (%s)", s.Name, stateSentence(s.State), s.Error, s.hint)
		} else if s.Error != "" {
			warnf(cmd.ErrOrStderr(), "server %q %s: %s", s.Name, stateSentence(s.State), s.Error)
		} else if s.PingError != "" {
			warnf(cmd.ErrOrStderr(), "server %q did not answer %s: %s", s.Name, s.PingMethod, s.PingError)
		}
	}
}
