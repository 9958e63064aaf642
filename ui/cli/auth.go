package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime/auth"
	"mcpdeck/ui/present"
)

// authFlags are the flags the auth subcommands share.
type authFlags struct {
	url    string
	asJSON bool
}

func newAuthCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "MCP authorization (OAuth) for remote servers: login, logout, status",
		Long: `auth manages the tokens of remote servers that require MCP authorization.

  mcpdeck auth login  SERVER|--url URL    log in through the browser (or with
                                          client credentials) and store the token
  mcpdeck auth logout SERVER|--url URL    forget the stored token (--forget-client:
                                          and mcpdeck's client registration)
  mcpdeck auth status [SERVER|--url URL]  what is stored, never the token itself

Tokens live in the OS keyring, or where none is reachable in
$XDG_STATE_HOME/mcpdeck/oauth.json (mode 0600); MCPDECK_AUTH_STORAGE=file
forces the file.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAuthLoginCmd(), newAuthLogoutCmd(), newAuthStatusCmd())
	return cmd
}

func addAuthURLFlag(cmd *cobra.Command, f *authFlags) {
	cmd.Flags().StringVar(&f.url, "url", "", "an ad-hoc remote server at `URL` instead of a configured one")
}

// authTargets resolves the servers an auth command works on: the ad-hoc
// --url, the named server, or with all every http and sse server.
func authTargets(cmd *cobra.Command, f *authFlags, args []string, all bool) ([]auth.Target, error) {
	if f.url != "" {
		if len(args) > 0 {
			return nil, withCode(ExitUsage, fmt.Errorf("name no SERVER with --url (got %s)", strings.Join(args, ", ")))
		}
		u, err := url.Parse(f.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, withCode(ExitUsage, fmt.Errorf("--url %q: give an http:// or https:// URL", f.url))
		}
		return []auth.Target{adHocAuthTarget(f.url)}, nil
	}
	if len(args) == 0 && !all {
		return nil, withCode(ExitUsage, errors.New("name a SERVER or give --url"))
	}
	// A server whose definition is broken does not stop the others (as
	// for the commands that start servers); naming it is an error.
	cfg, err := loadRunnable(configFiles(cmd))
	if err != nil {
		return nil, err
	}
	var out []auth.Target
	if len(args) == 0 {
		for _, s := range cfg.Servers {
			if s.Transport != config.TransportStdio && s.Invalid == nil {
				out = append(out, auth.TargetOf(s))
			}
		}
		return out, nil
	}
	for _, name := range args {
		s, ok := cfg.Server(name)
		if !ok {
			return nil, withCode(ExitUsage, fmt.Errorf("no server %q in %s (configured: %s)", name, sourcesOf(cfg), namesOf(cfg)))
		}
		if s.Invalid != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("server %q has an invalid configuration: %w", name, s.Invalid))
		}
		if s.Transport == config.TransportStdio {
			return nil, withCode(ExitUsage, fmt.Errorf("server %q runs on stdio: MCP authorization is for remote (http, sse) servers; give a stdio server its credentials in \"env\"", name))
		}
		out = append(out, auth.TargetOf(s))
	}
	return out, nil
}

// adHocAuthTarget is the auth target of the ad-hoc server at u (--url): it
// has no name to log in by, nor an entry for its headers.
func adHocAuthTarget(u string) auth.Target {
	t := auth.TargetOf(adHocServer(config.SourceCommandLine))
	t.URL, t.LoginCommand = u, "mcpdeck auth login --url "+u
	return t
}

// newAuthManager is the manager of a CLI command: the login URL goes to
// stderr, so a person on a machine without a browser can open it elsewhere.
func newAuthManager(cmd *cobra.Command, timeout time.Duration) *auth.Manager {
	stderr := cmd.ErrOrStderr()
	adHocURL := ""
	if f := cmd.Flags().Lookup("url"); f != nil {
		adHocURL = f.Value.String()
	}
	return auth.NewManager(auth.Options{
		LoginTimeout: timeout,
		// The ad-hoc server (--url) has no name to log in by: name its URL.
		LoginCommand: func(t auth.Target) string {
			if adHocURL != "" && t.Name == adHocName {
				return "mcpdeck auth login --url " + t.URL
			}
			return ""
		},
		OnSecret: config.AddSecret, // tokens are scrubbed from everything shown
		OnURL: func(server, u string) {
			fmt.Fprintf(stderr, "mcpdeck: to log in to %q, open this URL in a browser (opening one now):\n\n  %s\n\nmcpdeck: waiting for the browser; ctrl+c cancels\n", server, u)
		},
	})
}

// authExitCode maps an auth error to the command line's exit codes.
func authExitCode(ctx context.Context, err error) int {
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	case errors.Is(err, auth.ErrNoAuthorization):
		return ExitUsage
	}
	return ExitConnection
}

func newAuthLoginCmd() *cobra.Command {
	var f authFlags
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login SERVER|--url URL",
		Short: "Log in to a server that requires MCP authorization and store its token",
		Long: `login asks the server for its authorization requirements, finds its
authorization server, identifies mcpdeck (a configured client id, a client
id metadata document, or dynamic registration), prints the authorization URL
to stderr, opens the browser ($BROWSER, else xdg-open or open) and waits for
the redirect on 127.0.0.1. With "grantType": "client_credentials", an
"idp" block (enterprise-managed authorization) or an "assertionFile"
(workload identity) in the server's "oauth" block no browser is needed.
A client mcpdeck registered earlier that the authorization server has
forgotten is registered again, once.

Exit status: 0 logged in, 2 usage error or a server that needs no login,
3 discovery, registration, authorization or token failure, 4 interrupted or
timed out.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := authTargets(cmd, &f, args, false)
			if err != nil {
				return err
			}
			ctx, stop := signalContext(cmd)
			defer stop()
			m := newAuthManager(cmd, timeout)
			st, err := m.Login(ctx, targets[0])
			if err != nil {
				if ctx.Err() != nil {
					return withCode(ExitTimeout, fmt.Errorf("login to %q cancelled by a signal; nothing was stored", targets[0].Name))
				}
				return withCode(authExitCode(ctx, err), err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s: %s\n", st.Server, describeStatus(st))
			return nil
		},
	}
	addAuthURLFlag(cmd, &f)
	cmd.Flags().DurationVar(&timeout, "timeout", auth.DefaultLoginTimeout, "how long to wait for the browser")
	return cmd
}

func newAuthLogoutCmd() *cobra.Command {
	var f authFlags
	var forgetClient bool
	cmd := &cobra.Command{
		Use:   "logout SERVER|--url URL",
		Short: "Forget a server's stored token (and, with --forget-client, mcpdeck's registration)",
		Long: `logout forgets the server's stored token. The client mcpdeck registered
with the server's authorization server (dynamic client registration) is
kept for the next login, unless --forget-client is given: then it is
forgotten too, and the next login registers anew. A login notices by
itself when an authorization server forgot the client (it answers
invalid_client) and registers again once; --forget-client is for the
rest (a registration with the wrong redirect port or grant types, or
one you revoked at the authorization server). With nothing stored,
--forget-client asks the server which authorization server it uses.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := authTargets(cmd, &f, args, false)
			if err != nil {
				return err
			}
			m := newAuthManager(cmd, 0)
			if !forgetClient {
				if err := m.Logout(targets[0]); err != nil {
					return withCode(ExitConnection, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "logged out of %s\n", targets[0].Name)
				return nil
			}
			ctx, stop := signalContext(cmd)
			defer stop()
			issuer, err := m.ForgetClient(ctx, targets[0])
			if err != nil {
				return withCode(authExitCode(ctx, err), err)
			}
			msg := "logged out of %s; no client registration was stored\n"
			if issuer != "" {
				msg = "logged out of %s and forgot mcpdeck's registration with " + issuer + "; the next login registers anew\n"
			}
			fmt.Fprintf(cmd.OutOrStdout(), msg, targets[0].Name)
			return nil
		},
	}
	addAuthURLFlag(cmd, &f)
	cmd.Flags().BoolVar(&forgetClient, "forget-client", false, "also forget the client mcpdeck registered with the authorization server")
	return cmd
}

func newAuthStatusCmd() *cobra.Command {
	var f authFlags
	cmd := &cobra.Command{
		Use:   "status [SERVER|--url URL]",
		Short: "Show what is stored for each remote server (never the token)",
		Long: `status shows, for the named server or every remote one (and every --url
server a token is stored for, named adhoc as every command names an ad-hoc
server, its URL beside it), whether a token is
stored, when it expires, whether it can be refreshed, its scopes, the
authorization server that issued it, and where tokens are kept. It makes no
network request. --json prints an array of objects with the fields
server, resource, tokenPresent, expiry, expired, refreshable, scopes,
authorizationServer, clientId, clientSource, grantType, loginRunning
(a login in progress in this process), storage and storagePath.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := authTargets(cmd, &f, args, true)
			if err != nil {
				return err
			}
			m := newAuthManager(cmd, 0)
			if f.url == "" && len(args) == 0 {
				adHoc, err := storedAdHoc(m)
				if err != nil {
					return withCode(ExitConnection, err)
				}
				targets = append(targets, adHoc...)
			}
			statuses := []*auth.Status{}
			for _, t := range targets {
				st, err := m.Status(t)
				if err != nil {
					return withCode(ExitConnection, err)
				}
				statuses = append(statuses, st)
			}
			if f.asJSON {
				return present.WriteJSON(cmd.OutOrStdout(), statuses)
			}
			printStatuses(cmd.OutOrStdout(), statuses)
			return nil
		},
	}
	addAuthURLFlag(cmd, &f)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
	return cmd
}

// storedAdHoc are the targets of the tokens stored for ad-hoc --url
// servers, which no configuration names: auth status lists them after the
// configured servers, so a stored token is never hidden.
func storedAdHoc(m *auth.Manager) ([]auth.Target, error) {
	store, err := m.Store()
	if err != nil {
		return nil, err
	}
	toks, err := store.Tokens()
	if err != nil {
		return nil, err
	}
	var out []auth.Target
	for _, tok := range toks {
		if tok.Name == adHocName {
			out = append(out, adHocAuthTarget(tok.URL))
		}
	}
	return out, nil
}

func printStatuses(w io.Writer, statuses []*auth.Status) {
	if len(statuses) == 0 {
		fmt.Fprintln(w, "no remote servers configured, and no token stored for a --url server")
		return
	}
	// The name is the one --json and every other command print (adhoc for
	// a --url server); the URL beside it tells two ad-hoc servers apart.
	rows := make([][]string, 0, len(statuses))
	for _, st := range statuses {
		rows = append(rows, []string{st.Server, st.Resource, describeStatus(st)})
	}
	printTable(w, []string{"NAME", "URL", "STATUS"}, rows)
}

// describeStatus says in one line what is stored for a server.
func describeStatus(st *auth.Status) string {
	where := string(st.Storage)
	if st.StoragePath != "" {
		where += " " + st.StoragePath
	}
	if !st.TokenPresent {
		return "not logged in (storage: " + where + ")"
	}
	var parts []string
	switch {
	case st.Expiry == nil:
		parts = append(parts, "token without expiry")
	case st.Expired && st.Refreshable:
		parts = append(parts, "token expired "+st.Expiry.Local().Format(time.DateTime)+", refreshed on next use")
	case st.Expired:
		parts = append(parts, "token expired "+st.Expiry.Local().Format(time.DateTime)+": log in again")
	default:
		parts = append(parts, "token valid until "+st.Expiry.Local().Format(time.DateTime))
	}
	if len(st.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(st.Scopes, " "))
	}
	if st.AuthorizationServer != "" {
		parts = append(parts, "authorization server "+st.AuthorizationServer)
	}
	parts = append(parts, "storage: "+where)
	return strings.Join(parts, "; ")
}
