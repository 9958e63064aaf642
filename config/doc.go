// Package config owns mcpdeck's view of mcp.json: discovering the files,
// parsing them in the formats other MCP clients already write, expanding
// variables, validating every server and remembering which project files the
// user approved. It imports nothing else of mcpdeck so the runtime, the TUI
// and the command line all share one definition of a server.
//
// # Formats
//
// Two top-level shapes are read as they are:
//
//	{"mcpServers": {...}, "disabledServers": ["name", ...]}  // Claude Desktop, Claude Code, Cursor
//	{"servers": {...}, "inputs": [...]}                     // VS Code
//
// Files are JSON with comments and trailing commas (JSONC, as VS Code writes
// it). A file holding both "mcpServers" and "servers" is an error, because
// no client reads both and guessing which one was meant hides mistakes.
// "disabledServers" applies to the servers of the same file only.
//
// # Server fields
//
//	type            "stdio", "http", "streamable-http" (same as "http") or "sse";
//	                inferred when absent: "command" means stdio, "url" means http
//	command, args   stdio: the program (run without a shell) and its arguments
//	env             object of strings, merged over envFile
//	envFile         KEY=VALUE lines; "#" comments, blank lines, an optional
//	                "export " prefix and quoted values are accepted
//	cwd             working directory of a stdio server
//	url, headers    http and sse: the endpoint and extra request headers
//	enabled         false turns the server off; "disabled": true does the same
//	startupTimeout  how long connect plus initialize may take (default 30s)
//	timeout         per-request timeout (default 60s); "callTimeout" is an alias
//	pingInterval    health ping period (default 15s); 0 means the default,
//	                "off", false or a negative number turn pings off
//	autoReconnect   true/false, or {"enabled", "maxAttempts", "initialBackoff",
//	                "maxBackoff"} (defaults true, 5, 500ms, 30s)
//	oauth           http and sse: MCP authorization (OAuth 2.1) settings, below
//	envInherit      stdio: which of mcpdeck's own environment variables the
//	                server receives besides the default set: "all", "default"
//	                (the default set only), or a list such as ["AWS_PROFILE"]
//	secrets         names of env or header entries whose values are secrets
//	                even though they do not look like one, e.g. ["DB_URL"]
//	logLevel        the lowest level of log messages asked of the server
//	                (logging/setLevel): debug, info, notice, warning, error,
//	                critical, alert or emergency; default info (--log-level)
//	roots           directories offered to the server by roots/list, e.g.
//	                ["~/notes", "${workspaceFolder}"]; variables and ~ expand,
//	                relative paths resolve like "cwd", file:// URIs are read
//	                as their path
//	protocol        the protocol era: "auto" (the default: probe for the
//	                stateless revision 2026-07-28 with server/discover, fall
//	                back to initialize), "legacy" (initialize only), "modern"
//	                (2026-07-28 only) or one revision such as "2025-06-18";
//	                mcpdeck's --protocol flag, when given, overrides it
//	discoverTimeout stdio: how long the server/discover probe is waited for
//	                alone before initialize is sent alongside it (default 2s);
//	                whichever answer settles the era wins, and a discovery
//	                result that comes later still makes the server modern
//
// # Roots
//
// mcpdeck declares the roots capability only to servers it has roots for:
// the server's own "roots", else its file's top-level "roots" (which, like
// a top-level "envInherit", applies to that file's servers that name none),
// else the --root directories given on the command line. A server with none
// is not offered roots at all, so it keeps the directories it was started
// with (server-filesystem replaces its command-line directories with the
// client's roots). The TUI edits a server's roots for the session (o).
//
// # Environment of stdio servers
//
// A stdio server does not receive mcpdeck's whole environment (cloud keys,
// GITHUB_TOKEN and the like stay with mcpdeck). Following the TypeScript
// SDK's getDefaultEnvironment, it receives a default set (Unix: HOME,
// LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR, TZ; Windows:
// APPDATA, HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH, PATHEXT,
// PROCESSOR_ARCHITECTURE, SYSTEMDRIVE, SYSTEMROOT, TEMP, USERNAME,
// USERPROFILE, PROGRAMFILES), then whatever "envInherit" adds, then its own
// "envFile" and "env", which win. "envInherit" may be set per server or at
// the top level of a file, where it applies to that file's servers that do
// not set their own (as "disabledServers" applies to its file only);
// LoadOptions.EnvInherit is the default for files that say nothing. See
// Server.ProcessEnv.
//
// # Secrets
//
// Values are secrets, never displayed and scrubbed from everything a
// server sends back, when they are header values, URL passwords, env
// values whose name looks like a credential (TOKEN, KEY, SECRET, PASSWORD,
// AUTH, CREDENTIAL, COOKIE, SESSION, PRIVATE, ...), values that look like
// one (known token prefixes such as sk- or ghp_, JWTs, long random
// strings), or values of the names a server lists in "secrets". Other env
// values (UNIT=numbers, paths, words) are not scrubbed. Tokens obtained at
// run time are added with AddSecret. See Scrubber.
//
// # Project files and approval
//
// A project file runs commands someone else may have written. Until its
// current content is approved (LoadOptions.Approved, usually
// TrustStore.Trusted), it is read only far enough to show what it would
// do: its envFile is not read, its environment variables (${VAR},
// ${env:VAR}, with or without a default) are kept as written rather than
// expanded, so nothing of the user's environment reaches what it shows
// (config show, validate, the approval dialog), and its servers are marked
// Unapproved and must not start. Predefined variables (${workspaceFolder},
// ${userHome}) and ~ still expand: they are paths, not secrets. Callers load, ask for approval of Config.Unapproved(),
// record it with TrustStore.Trust, and load again.
//
// Durations are numbers of milliseconds (as Claude Code's "timeout") or Go
// duration strings such as "30s" or "1m30s". Unknown fields are warnings, not
// errors: other clients add their own.
//
// Relative "cwd" and "envFile" paths resolve against the project directory
// for project files (that is where the other clients run them from) and
// against the file's own directory for explicit and user files.
//
// # Authorization
//
// A remote server that answers 401 with an OAuth challenge needs a login
// (mcpdeck auth login SERVER); no configuration is needed for that. The
// optional "oauth" block tunes it:
//
//	clientId        a pre-registered client id, tried first
//	clientSecret    its secret; a secret like a header value, so write
//	                "${env:NAME}" (it is scrubbed from all output)
//	scopes          scopes to request instead of those the server suggests:
//	                a space-separated string or an array of strings
//	redirectPort    fixed port of the loopback redirect listener
//	                (http://127.0.0.1:PORT/callback); default a free port
//	grantType       "authorization_code" (log in through the browser, the
//	                default) or "client_credentials" (no browser; needs
//	                clientId and clientSecret)
//	clientMetadataUrl      mcpdeck's Client ID Metadata Document, an https
//	                URL with a path, used where the authorization server
//	                supports such documents
//	authServerMetadataUrl  fetch the authorization server's metadata from here
//	                instead of discovering it
//	privateKeyFile  PEM private key of the pre-registered client, which then
//	                authenticates with a signed JWT (private_key_jwt, RFC 7523)
//	                instead of clientSecret; read at every token request
//	signingAlgorithm  its JWS algorithm (ES256, RS256, PS256, EdDSA, ...);
//	                default: the one the key's type implies
//	idp             enterprise-managed authorization (SEP-990), no browser:
//	                {"issuer": "https://idp.example.com", "clientId": "…",
//	                "idToken": "${env:IDP_ID_TOKEN}"} and optionally
//	                "tokenEndpoint" (else discovered from issuer) and
//	                "clientSecret"; the ID token is exchanged at the identity
//	                provider, the grant it returns at the server's
//	                authorization server, as clientId (with clientSecret or
//	                privateKeyFile)
//	assertionFile   workload identity (SEP-1933), no browser: a file holding
//	                the JWT the platform issues this workload (a Kubernetes
//	                service account token, a CI job's OIDC token), traded for
//	                a token with the JWT bearer grant; read at every request
//
// clientSecret, idp.clientSecret and idp.idToken are secrets: write them as
// "${env:NAME}" (they are scrubbed from all output, and redacted by config
// show). One grant per block: grantType "client_credentials", "idp" and
// "assertionFile" exclude each other.
//
// The other clients' spellings are read too: Claude Code's "callbackPort"
// and one-string "scopes", VS Code's {"clientId"}, and Cursor's "auth" block
// with "CLIENT_ID", "CLIENT_SECRET" and an array of "scopes".
//
// # Variables
//
// command, args, env values, envFile, cwd, url, header values and the
// strings of the oauth block expand
// ${VAR}, ${VAR:-default} (default when VAR is unset or empty, as in a
// shell), ${env:VAR}, ${workspaceFolder}, ${workspaceFolderBasename},
// ${userHome}, ${pathSeparator} (or ${/}) and a leading "~" (not in url or
// headers). Predefined variables, including LoadOptions.Vars, win over the
// environment. A VS Code ${input:id} cannot be prompted for outside VS Code:
// the server is kept but marked NeedsInput and never started, and the rest of
// the configuration still works. A test suite's inputs (mcpdeck test) give
// such variables values, through LoadOptions.Vars.
//
// # Gateway
//
// The optional top-level "gateway" block governs mcpdeck gateway, which
// serves the enabled servers to other MCP clients:
//
//	token           bearer token HTTP clients must send; "${env:NAME}" expands.
//	                Without it MCPDECK_GATEWAY_TOKEN is used, else a token is
//	                generated per run. Read only from --config and user files.
//	allowedOrigins  browser origins allowed besides loopback ones (Origin is
//	                checked against DNS rebinding); --config and user files only
//	servers         {"allow": [GLOB...], "deny": [GLOB...], "approve": [GLOB...]}
//	                on server names
//	tools           the same on bridged tool names (server__tool)
//	prompts         allow and deny on bridged prompt names (server__prompt)
//	callTimeout     bound of one request a client makes (default 60s)
//	maxConcurrent   requests one client may have in flight (default 16)
//	approveDestructive  true: a call to a tool annotated destructiveHint: true
//	                waits for the operator's approval
//	approvalTimeout how long a call waits for the operator before it is
//	                refused (default 2m)
//	clients         [{"match": GLOB, ...}]: for clients whose identity
//	                matches (the token's identity claim with "auth", else
//	                clientInfo.name), the first matching entry's servers,
//	                tools, prompts, callTimeout, maxConcurrent, rateLimit,
//	                toolRateLimits and approvalTimeout replace the top-level
//	                ones; its approve patterns and approveDestructive add to
//	                the top-level ones and never remove them
//	rateLimit       {"rate": "10/s", "burst": 20}: a token bucket per client
//	                over its forwarded requests (tools/call, prompts/get,
//	                resources/read, completion/complete); rates are N/s, N/m
//	                or N/h; burst defaults to one second's worth
//	toolRateLimits  [{"tools": GLOB, "rate": "5/m", "burst": 2}]: a bucket per
//	                client and matching tool (bridged name); every matching
//	                entry applies
//	auth            OAuth instead of the token (--config and user files only):
//	                {"issuer": URL, "resource"?: the gateway's public URL (the
//	                token audience; default the URL it serves), "jwksUrl"?:
//	                (default the issuer's jwks_uri), "identityClaim"?: "sub",
//	                "scopes"?: [...]}
//	audit           a JSON Lines file of every call (--config and user files
//	                only): "FILE", or {"file": FILE, "arguments": "digest" |
//	                "scrubbed" | "none", "maxSizeMB": 100, "maxFiles": 10}
//
// A tools/call whose server or bridged tool matches an approve pattern (or
// whose tool is destructive, with approveDestructive) waits for the
// operator: the TUI asks, a headless gateway answers over its control
// socket (mcpdeck gateway approve|deny ID), and a call nobody can answer,
// or not in time, is refused with an error naming the rule.
//
// Globs use path.Match syntax (*, ?, [a-z]). A name is allowed when it
// matches no deny pattern and, when the allow list is not empty, some allow
// pattern. A refused request gets a JSON-RPC error naming the rule and where
// it is written. Client names are self-reported: per-client rules shape what
// a well-meaning client sees; the token is the security boundary. With
// "auth" the identity comes from a signed token instead, and the rules are
// a boundary too. When several files have a gateway block, the nearest one
// is used.
//
// # Alerts
//
// The optional top-level "alerts" block governs the alert rules mcpdeck
// monitor evaluates (see runtime/alert):
//
//	webhook             where each firing and resolved alert is POSTed, in
//	                    Alertmanager's webhook payload: "URL", or {"url": URL,
//	                    "headers": {"Authorization": "Bearer ${env:T}"},
//	                    "timeout": "10s"}; --config and user files only
//	                    (monitor --alert-webhook wins)
//	repeatInterval      how often a firing alert is sent again (default 4h)
//	evaluationInterval  how often the rules are evaluated (default 5s)
//	labels              {"name": "value"} added to every alert
//	rules               [{"alert": NAME, "condition": C, "for": "1m", ...}];
//	                    without it the default rules apply, and [] turns
//	                    every rule off
//
// A rule's condition is one of failed, degraded, reconnects_given_up,
// latency_p95 (with "threshold", the bound on the p95, and optionally
// "window", default 5m, and "method", e.g. "ping" or "tools/call"),
// tool_changed and login_expired. "for" is how long it must hold before the
// alert fires; "servers" narrows it to server names matching globs;
// "severity", "labels" and "annotations" are added to what is sent. When
// several files have an alerts block, the nearest one is used, with the
// webhook of the next one that has a webhook when it has none.
//
// # Discovery
//
// See Load. Each server records its source file and scope; a name defined in
// several files resolves to the nearest scope (explicit > project > user >
// default, and within one scope the earlier file) and the losing
// definitions are reported in Config.Shadowed.
package config
