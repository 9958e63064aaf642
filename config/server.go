package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Transport is how mcpdeck talks to a server.
type Transport string

// The transports a server can declare. "streamable-http" in a file is read
// as TransportHTTP: it is the same MCP transport under its spec name.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
	TransportSSE   Transport = "sse"
)

// Scope says where a configuration file was found; nearer scopes win a name
// clash and project scope needs the user's approval before anything starts.
type Scope string

// The scopes, nearest first.
const (
	ScopeExplicit Scope = "explicit" // a --config FILE
	ScopeProject  Scope = "project"  // a file in the project directory
	ScopeUser     Scope = "user"     // the user's own mcpdeck/mcp.json
	ScopeDefault  Scope = "default"  // the embedded default
)

// Defaults for the per-server timing fields.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultCallTimeout    = 60 * time.Second
	DefaultPingInterval   = 15 * time.Second
	DefaultMaxAttempts    = 5
	DefaultInitialBackoff = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// RedactedValue replaces every secret in displays, logs and JSON output.
const RedactedValue = "••••••"

// minScrubLen is the shortest secret scrubbed out of free text (and so out
// of command, args and url): shorter values would match ordinary words, and
// no credential is that short.
const minScrubLen = 6

// Reconnect is a server's automatic reconnect policy: capped exponential
// backoff from InitialBackoff to MaxBackoff, at most MaxAttempts tries.
type Reconnect struct {
	Enabled        bool
	MaxAttempts    int
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
}

// DefaultReconnect is the policy of a server that does not configure one.
func DefaultReconnect() Reconnect {
	return Reconnect{Enabled: true, MaxAttempts: DefaultMaxAttempts, InitialBackoff: DefaultInitialBackoff, MaxBackoff: DefaultMaxBackoff}
}

// SourceCommandLine is the Source of an ad-hoc server, given with --stdio
// or --url rather than in a file: it has no name a configuration knows.
const SourceCommandLine = "command line"

// HeadersAdvice is where a credential for s goes, said after "set it"
// or "add it": under "headers" in its entry, or, for an ad-hoc server
// given on the command line (it has no entry), with --header.
func (s Server) HeadersAdvice() string {
	if s.Source == SourceCommandLine {
		return "with --header 'Authorization: Bearer …' (or the header it expects)"
	}
	return "under \"headers\" in its entry (for example Authorization)"
}

// Server is one resolved server definition: variables expanded, envFile
// merged, defaults filled in. Env and Headers hold secrets: display a
// Redacted copy.
type Server struct {
	Name      string
	Transport Transport
	// TransportInferred is set when the file gave no "type": a url then
	// means Streamable HTTP, falling back to legacy SSE if the server
	// turns out to speak only that.
	TransportInferred bool
	Command           string            // stdio, after expansion
	Args              []string          // stdio, after expansion
	Env               map[string]string // envFile merged, env wins; secrets
	Cwd               string            // stdio; empty means mcpdeck's working directory
	URL               string            // http and sse
	Headers           map[string]string // http and sse; secrets
	// OAuth is the "oauth" block of an http or sse server (see OAuth); nil
	// when the file has none. Its ClientSecret is a secret.
	OAuth *OAuth
	// Enabled is false when the file says "disabled": true or
	// "enabled": false, or lists the server in "disabledServers".
	Enabled        bool
	StartupTimeout time.Duration
	CallTimeout    time.Duration
	// LogLevel is the lowest level of log messages asked of the server
	// (logging/setLevel); "" uses the session's default.
	LogLevel string
	// Roots are the directories offered to the server by roots/list; with
	// none (here and globally) the roots capability is not declared.
	Roots []string
	// PingInterval is the health ping period; 0 means pings are off.
	PingInterval time.Duration
	// Protocol chooses the protocol era: "" or "auto" (probe for
	// 2026-07-28, fall back to initialize), "legacy", "modern", or one
	// revision ("2025-06-18"). A --protocol flag given on the command line
	// overrides it.
	Protocol string
	// DiscoverTimeout is how long the server/discover probe of a stdio
	// server is waited for alone before initialize is sent alongside it (the
	// answers, not the wait, decide the era); 0 means the default (2s).
	DiscoverTimeout time.Duration
	AutoReconnect   Reconnect
	// NeedsInput, when non-empty, says why the server cannot start: it uses
	// a VS Code ${input:...} that only VS Code can prompt for.
	NeedsInput string
	// EnvFile is the envFile path after expansion, "" when none is set. It
	// is shown for approval: an unapproved file's envFile is not read.
	EnvFile string
	// EnvInherit is what a stdio server inherits from mcpdeck's
	// environment beyond the default set; see ProcessEnv.
	EnvInherit EnvInherit
	// SecretNames are the env and header names the configuration marks as
	// secrets ("secrets"), on top of those that look like one.
	SecretNames []string
	// Unapproved is set when the server comes from a project file whose
	// content was not approved at Load: its envFile was not read and it
	// must not start. Approve the file, then Load again.
	Unapproved bool
	Source     string // the file it came from, the embedded default's name, or SourceCommandLine
	Scope      Scope
	Pos        Position // the server's key in Source
	// Invalid, when set (only with LoadOptions.KeepInvalid), is every
	// problem of this server's definition as Errors; nothing else in the
	// Server can be trusted and it must never start, while every other
	// server still does.
	Invalid error

	// written is the launch definition as the file writes it, before any
	// variable is expanded; nil for a Server not read from a file.
	written *written
}

// written is what Changes compares when both definitions have it: an
// unapproved project file is read with its ${env:…} references kept as
// written, the approved one it replaces with them expanded, so comparing
// the expanded values would call every reference a change.
type written struct {
	command      string
	args         []string
	url          string
	env, headers map[string]string
}

// Secrets returns the values that must never be displayed: every header
// value (and its credential after a scheme such as "Bearer ", see
// HeaderSecrets), a password
// in the URL, env values whose name or shape says credential or that the
// configuration marks ("secrets"), and such values inherited through
// envInherit; without empties or duplicates. UNIT=numbers, paths and
// ordinary words are not secrets: scrubbing them would mangle output and
// report leaks that are none.
func (s Server) Secrets() []string {
	var out []string
	for k, v := range s.Env {
		if s.isSecret(k, v) {
			out = append(out, v)
		}
	}
	for _, v := range s.Headers {
		out = append(out, HeaderSecrets(v)...)
	}
	out = append(out, s.OAuth.secrets()...)
	out = append(out, urlPassword(s.URL))
	out = append(out, s.inheritedSecrets()...)
	out = slices.DeleteFunc(out, func(v string) bool { return v == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

// Equal reports whether s and o launch the same server, so a reload can
// keep a running connection. Where a definition came from (Source, Scope,
// Pos) does not matter.
func (s Server) Equal(o Server) bool {
	return s.Name == o.Name &&
		s.Transport == o.Transport &&
		s.TransportInferred == o.TransportInferred &&
		s.Command == o.Command &&
		slices.Equal(s.Args, o.Args) &&
		maps.Equal(s.Env, o.Env) &&
		s.Cwd == o.Cwd &&
		s.URL == o.URL &&
		maps.Equal(s.Headers, o.Headers) &&
		equalOAuth(s.OAuth, o.OAuth) &&
		s.Enabled == o.Enabled &&
		s.StartupTimeout == o.StartupTimeout &&
		s.CallTimeout == o.CallTimeout &&
		s.PingInterval == o.PingInterval &&
		s.Protocol == o.Protocol &&
		s.DiscoverTimeout == o.DiscoverTimeout &&
		s.LogLevel == o.LogLevel &&
		slices.Equal(s.Roots, o.Roots) &&
		s.AutoReconnect == o.AutoReconnect &&
		s.NeedsInput == o.NeedsInput &&
		s.EnvInherit.Equal(o.EnvInherit) &&
		slices.Equal(s.SecretNames, o.SecretNames) &&
		errString(s.Invalid) == errString(o.Invalid) &&
		s.Unapproved == o.Unapproved
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Redacted returns a copy safe to display: every header value and every
// env value that is a secret (see Secrets: by name, by shape, or marked in
// "secrets") is replaced by RedactedValue, while ordinary settings such as
// LOG_LEVEL=debug stay readable, since seeing them is why one looks. The
// secrets are scrubbed from command, args and url too: an API key passed
// as "--token=${KEY}" must not leak through the arguments, while "--unit
// numbers" stays readable.
func (s Server) Redacted() Server {
	scrub := s.Scrubber().String
	r := s
	r.Command = scrub(s.Command)
	r.Args = nil
	for _, a := range s.Args {
		r.Args = append(r.Args, scrub(a))
	}
	r.URL = redactURL(s.URL, scrub)
	r.Env = s.redactEnv()
	r.Headers = redactMap(s.Headers)
	r.OAuth = s.OAuth.redacted()
	return r
}

// redactEnv is s.Env with its secrets replaced, and a value that embeds
// another secret (a URL carrying the token) scrubbed.
func (s Server) redactEnv() map[string]string {
	if s.Env == nil {
		return nil
	}
	scrub := s.Scrubber().String
	out := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		if s.isSecret(k, v) {
			out[k] = RedactedValue
		} else {
			out[k] = scrub(v)
		}
	}
	return out
}

func redactMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = RedactedValue
	}
	return out
}

// redactURL hides a userinfo password before scrubbing, because a short
// password is still a password when it sits in the userinfo.
func redactURL(raw string, scrub func(string) string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			const mark = "mcpdeck-redacted-password"
			u.User = url.UserPassword(u.User.Username(), mark)
			raw = strings.Replace(u.String(), ":"+mark+"@", ":"+RedactedValue+"@", 1)
		}
	}
	return scrub(raw)
}

func (t Transport) String() string { return string(t) }

func (s Scope) String() string { return string(s) }

// CommandLine renders a stdio server's command and arguments so they can
// be pasted into a POSIX shell and run as they are (see ShellQuote).
// Display a Redacted copy's.
func (s Server) CommandLine() string {
	words := make([]string, 0, 1+len(s.Args))
	for _, a := range append([]string{s.Command}, s.Args...) {
		words = append(words, ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// ShellQuote quotes one word for a POSIX shell when it needs it: a word
// with anything the shell would interpret is single-quoted (a quote inside
// as '\”), so no $, backquote or glob in it expands.
func ShellQuote(a string) string {
	if a == "" {
		return "''"
	}
	if !strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;#~!") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
