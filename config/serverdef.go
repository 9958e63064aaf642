package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// serverFields are the per-server fields mcpdeck reads; anything else is
// another client's business and only warned about.
var serverFields = []string{
	"type", "command", "args", "env", "envFile", "cwd", "url", "headers",
	"enabled", "disabled", "startupTimeout", "timeout", "callTimeout",
	"pingInterval", "autoReconnect", "oauth", "auth", "envInherit", "secrets", "protocol", "discoverTimeout",
	"logLevel", "roots",
}

// rawServer is one server's fields as written, before expansion.
type rawServer struct {
	name    string
	keyOff  int
	fields  map[string]*hujson.Value
	typ     string
	command string
	args    []string
	argOffs []int
	env     []member
	envVals map[string]string
	headers []member
	hdrVals map[string]string
	envFile string
	// envFilePath is envFile expanded and made absolute.
	envFilePath string
	cwd         string
	url         string
	badType     map[string]bool // fields of the wrong JSON type; not expanded
	inputs      []string
	problems    int         // expansion problems found
	inherit     *EnvInherit // "envInherit" as written; nil when absent
	secrets     []string    // "secrets": names of env and header values to treat as secrets
}

// parseServer reads, expands and validates one server. ok is false when
// it has errors (they are recorded on p).
func (p *parser) parseServer(m member) (Server, bool) {
	errsBefore := len(p.errs)
	obj, isObj := p.object(m.value, m.name, "", "an object with \"command\" or \"url\"")
	if !isObj {
		return Server{}, false
	}
	r := p.readFields(m, obj)
	s := Server{
		Name: m.name, Enabled: true, Source: p.path, Scope: p.scope, Pos: p.pos(m.keyOff),
		StartupTimeout: DefaultStartupTimeout, CallTimeout: DefaultCallTimeout,
		PingInterval: DefaultPingInterval, AutoReconnect: DefaultReconnect(),
	}
	p.readSettings(r, &s)
	s.Roots = p.fileRoots
	if v := r.fields["roots"]; v != nil {
		s.Roots, _ = p.roots(v, m.name)
	}
	if v := r.fields["logLevel"]; v != nil {
		s.LogLevel = p.logLevel(v, m.name)
	}
	s.EnvInherit = p.inherit
	if r.inherit != nil {
		s.EnvInherit = *r.inherit
	}
	s.SecretNames = r.secrets
	if !r.badType["type"] && !r.badType["command"] && !r.badType["url"] {
		if t, ok := p.transport(r); ok {
			s.Transport = t
			s.TransportInferred = r.fields["type"] == nil
			p.expandServer(r, &s)
		}
	}
	if len(r.inputs) > 0 {
		s.NeedsInput = p.needsInput(r.inputs)
	}
	s.EnvFile = r.envFilePath
	s.Unapproved = p.unapproved
	return s, len(p.errs) == errsBefore
}

// readFields checks each field's JSON type and keeps the raw values.
func (p *parser) readFields(m member, obj *hujson.Object) *rawServer {
	r := &rawServer{name: m.name, keyOff: m.keyOff, fields: map[string]*hujson.Value{}, badType: map[string]bool{}}
	for _, f := range p.members(obj, m.name, "") {
		r.fields[f.name] = f.value
		var good bool
		switch f.name {
		case "type":
			r.typ, good = p.str(f.value, m.name, f.name)
		case "command":
			r.command, good = p.str(f.value, m.name, f.name)
		case "args":
			r.args, r.argOffs, good = p.stringList(f.value, m.name, f.name)
		case "env":
			r.env, r.envVals, good = p.stringMap(f.value, m.name, f.name)
		case "headers":
			r.headers, r.hdrVals, good = p.stringMap(f.value, m.name, f.name)
		case "envFile":
			r.envFile, good = p.str(f.value, m.name, f.name)
		case "cwd":
			r.cwd, good = p.str(f.value, m.name, f.name)
		case "url":
			r.url, good = p.str(f.value, m.name, f.name)
		case "envInherit":
			var inh EnvInherit
			if inh, good = p.envInherit(f.value, m.name, f.name); good {
				r.inherit = &inh
			}
		case "secrets":
			r.secrets, _, good = p.stringList(f.value, m.name, f.name)
		default:
			good = true
			if !slices.Contains(serverFields, f.name) {
				p.unknown(f.keyOff, m.name, f.name, f.name, serverFields, "another client's setting?")
			}
		}
		r.badType[f.name] = !good
	}
	return r
}

// readSettings reads the fields that need no expansion: enablement,
// timeouts and the reconnect policy.
func (p *parser) readSettings(r *rawServer, s *Server) {
	name := r.name
	enabled, hasEnabled := true, false
	if v := r.fields["enabled"]; v != nil {
		enabled, hasEnabled = p.boolean(v, name, "enabled")
	}
	if v := r.fields["disabled"]; v != nil {
		if disabled, ok := p.boolean(v, name, "disabled"); ok {
			if hasEnabled && disabled == enabled {
				p.errorf(v.StartOffset, name, "disabled", `contradicts "enabled"; keep one of them`)
			}
			enabled = enabled && !disabled
		}
	}
	s.Enabled = enabled
	if v := r.fields["startupTimeout"]; v != nil {
		s.StartupTimeout, _ = p.duration(v, name, "startupTimeout", DefaultStartupTimeout, false)
	}
	call := r.fields["timeout"]
	callField := "timeout"
	if v := r.fields["callTimeout"]; v != nil {
		if call != nil {
			p.errorf(v.StartOffset, name, "callTimeout", `is an alias of "timeout", which is also set; keep one`)
		}
		call, callField = v, "callTimeout"
	}
	if call != nil {
		s.CallTimeout, _ = p.duration(call, name, callField, DefaultCallTimeout, false)
	}
	if v := r.fields["pingInterval"]; v != nil {
		s.PingInterval, _ = p.duration(v, name, "pingInterval", DefaultPingInterval, true)
	}
	if v := r.fields["autoReconnect"]; v != nil {
		s.AutoReconnect = p.reconnect(v, name)
	}
	if v := r.fields["protocol"]; v != nil {
		if proto, ok := p.str(v, name, "protocol"); ok {
			if validProtocol(proto) {
				s.Protocol = strings.ToLower(strings.TrimSpace(proto))
			} else {
				p.errorf(v.StartOffset, name, "protocol", `unknown protocol %q; use "auto", "legacy", "modern" or a revision such as "2026-07-28"`, proto)
			}
		}
	}
	if v := r.fields["discoverTimeout"]; v != nil {
		s.DiscoverTimeout, _ = p.duration(v, name, "discoverTimeout", 0, false)
	}
}

// validProtocol accepts the protocol settings: auto, legacy, modern, or a
// revision date (YYYY-MM-DD). Whether mcpdeck speaks that revision is the
// runtime's to say, when the server starts.
func validProtocol(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "auto", "legacy", "modern":
		return true
	}
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// transport decides the transport from "type", "command" and "url" and
// reports the combinations no client can run.
func (p *parser) transport(r *rawServer) (Transport, bool) {
	_, hasCmd := r.fields["command"]
	_, hasURL := r.fields["url"]
	if tv := r.fields["type"]; tv != nil {
		var t Transport
		switch r.typ {
		case "stdio":
			t = TransportStdio
		case "http", "streamable-http":
			t = TransportHTTP
		case "sse":
			t = TransportSSE
		default:
			p.errorf(tv.StartOffset, r.name, "type", `unknown type %q; use "stdio", "http", "streamable-http" or "sse"`, r.typ)
			return "", false
		}
		switch {
		case t == TransportStdio && hasURL:
			p.errorf(r.fields["url"].StartOffset, r.name, "url", `a stdio server runs "command"; remove "url" or set "type" to "http"`)
		case t == TransportStdio && !hasCmd:
			p.errorf(r.keyOff, r.name, "command", `a stdio server needs "command"%s`, alsoNear(r, "command"))
		case t != TransportStdio && hasCmd:
			p.errorf(r.fields["command"].StartOffset, r.name, "command", `a %s server connects to "url"; remove "command" or set "type" to "stdio"`, r.typ)
		case t != TransportStdio && !hasURL:
			p.errorf(r.keyOff, r.name, "url", `a %s server needs "url"%s`, r.typ, alsoNear(r, "url"))
		default:
			return t, true
		}
		return "", false
	}
	switch {
	case hasCmd && hasURL:
		p.errorf(r.keyOff, r.name, "", `both "command" and "url" are set; a server is either a local process ("command") or a remote endpoint ("url")`)
	case hasCmd:
		return TransportStdio, true
	case hasURL:
		return TransportHTTP, true
	default:
		if near := unknownNear(r, "command", "url"); near != "" {
			p.errorf(r.keyOff, r.name, "", `neither "command" nor "url" is set: %s`, near)
			break
		}
		p.errorf(r.keyOff, r.name, "", `neither "command" nor "url" is set; add "command" to run a local server or "url" to connect to a remote one`)
	}
	return "", false
}

// alsoNear is "; " and unknownNear's words, or "".
func alsoNear(r *rawServer, want ...string) string {
	if near := unknownNear(r, want...); near != "" {
		return "; " + near
	}
	return ""
}

// commandLine reports whether command, as written, is a whole command
// line ("npx -y @scope/server", as a shell or another client's docs would
// run it) rather than a program, and the fields that run it: the program
// in "command", the rest before the args given. The program is a bare
// name there ("npx"), or an absolute path to a file when the whole line is
// none ("/usr/bin/node server.js"); any other path with a space in it
// ("/Applications/My App/server", "C:\\Program Files\\…") is a program.
// A line with quotes gets no fields (a shell's quoting is not mcpdeck's to
// guess), only the advice.
func commandLine(command string, args []string) (string, bool) {
	words := strings.Fields(command)
	if len(words) < 2 {
		return "", false
	}
	if strings.ContainsAny(words[0], `/\`) && !(filepath.IsAbs(words[0]) && isFile(words[0]) && !isFile(command)) {
		return "", false
	}
	if strings.ContainsAny(command, `"'`+"`") {
		return "one word each", true
	}
	var rest []string
	for _, a := range append(words[1:], args...) {
		rest = append(rest, plainJSON(a))
	}
	return fmt.Sprintf(`"command": %s, "args": [%s]`, plainJSON(words[0]), strings.Join(rest, ", ")), true
}

// isFile reports whether path names a file that is there (not a directory).
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// plainJSON is s as a JSON string as a person writes it: "&&" and "<" as
// they are.
func plainJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// expandServer expands variables in the launch fields and validates the
// results.
func (p *parser) expandServer(r *rawServer, s *Server) {
	s.written = &written{command: r.command, args: slices.Clone(r.args), url: r.url, env: maps.Clone(r.envVals), headers: maps.Clone(r.hdrVals)}
	ignored := []string{"headers", "oauth", "auth"}
	if s.Transport != TransportStdio {
		ignored = []string{"command", "args", "env", "envFile", "cwd", "envInherit"}
	}
	for _, f := range ignored {
		if v := r.fields[f]; v != nil {
			p.warnf(v.StartOffset, r.name, f, "is ignored for %s servers", s.Transport)
		}
	}
	if s.Transport == TransportStdio {
		s.Command = p.expandField(r, r.fields["command"].StartOffset, "command", r.command, true)
		if strings.TrimSpace(s.Command) == "" {
			p.errorf(r.fields["command"].StartOffset, r.name, "command", "is empty; name the program to run")
		} else if fix, ok := commandLine(r.command, r.args); ok {
			p.warnf(r.fields["command"].StartOffset, r.name, "command", "holds a whole command line, and mcpdeck runs no shell, so it looks for a program named %q: put the program in \"command\" and the rest in \"args\": %s", s.Command, fix)
			p.warns[len(p.warns)-1].Loud = true
		}
		if !r.badType["args"] {
			for i, a := range r.args {
				field, problems := fmt.Sprintf("args[%d]", i), r.problems
				v := p.expandField(r, r.argOffs[i], field, a, true)
				if v == "" && r.problems == problems {
					was := ""
					if a != "" {
						was = fmt.Sprintf(" (%q expanded to nothing)", a)
					}
					p.warnf(r.argOffs[i], r.name, field, "is empty%s; %s", was, EmptyArgument)
					p.warns[len(p.warns)-1].Loud = true
				}
				s.Args = append(s.Args, v)
			}
		}
		s.Env = p.resolveEnv(r)
		if v := r.fields["cwd"]; v != nil && !r.badType["cwd"] {
			s.Cwd = p.pathField(r, v.StartOffset, "cwd", r.cwd)
		}
		return
	}
	problems, inputs := r.problems, len(r.inputs)
	s.URL = p.expandField(r, r.fields["url"].StartOffset, "url", r.url, false)
	// A URL that keeps a variable (an input, or in an unapproved file any
	// environment variable) is checked once it is expanded.
	if r.problems == problems && len(r.inputs) == inputs && !strings.Contains(s.URL, "${") {
		p.checkURL(r, s.URL)
	}
	if !r.badType["headers"] {
		s.Headers = p.expandMap(r, "headers", r.headers, false)
		// A credential a set but empty variable left out is sent as it
		// is (the server answers for it), and said here.
		for _, m := range r.headers {
			if msg := MissingCredential(m.name, s.Headers[m.name]); msg != "" {
				p.warnf(m.value.StartOffset, r.name, "headers."+m.name, "%s; it is sent as it is", msg)
			}
		}
	}
	s.OAuth = p.parseOAuth(r)
}

// expandField expands one string and records its problems and inputs.
func (p *parser) expandField(r *rawServer, off int, field, raw string, tilde bool) string {
	x := p.exp.expand(raw, tilde)
	for _, msg := range x.problems {
		p.errorf(off, r.name, field, "%s", msg)
	}
	r.problems += len(x.problems)
	for _, in := range x.inputs {
		if !slices.Contains(r.inputs, in) {
			r.inputs = append(r.inputs, in)
		}
	}
	return x.value
}

func (p *parser) expandMap(r *rawServer, field string, ms []member, tilde bool) map[string]string {
	if ms == nil {
		return nil
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		raw, _ := m.value.Value.(hujson.Literal)
		out[m.name] = p.expandField(r, m.value.StartOffset, field+"."+m.name, raw.String(), tilde)
	}
	return out
}

// path expands a path field and makes it absolute against the file's base
// directory.
func (p *parser) pathField(r *rawServer, off int, field, raw string) string {
	v := p.expandField(r, off, field, raw, true)
	if v != "" && !filepath.IsAbs(v) && !strings.Contains(v, "${input:") {
		v = filepath.Join(p.baseDir, v)
	}
	return v
}

// resolveEnv merges envFile and env; env wins, as in VS Code.
func (p *parser) resolveEnv(r *rawServer) map[string]string {
	var env map[string]string
	if !r.badType["env"] {
		env = p.expandMap(r, "env", r.env, true)
	}
	v := r.fields["envFile"]
	if v == nil || r.badType["envFile"] {
		return env
	}
	path := p.pathField(r, v.StartOffset, "envFile", r.envFile)
	r.envFilePath = path
	if p.unapproved {
		// The file may name anything (/etc/shadow), and its lines would be
		// quoted in diagnostics. It is read on the Load after approval.
		p.warnf(v.StartOffset, r.name, "envFile", "%s is not read until this project file is approved", path)
		return env
	}
	if strings.Contains(path, "${") {
		return env
	}
	data, _, err := readRegular(path, maxEnvFileSize)
	if err != nil {
		p.errorf(v.StartOffset, r.name, "envFile", "cannot read %s: %v; fix the path or remove \"envFile\"", path, unwrapPathError(err))
		return env
	}
	fromFile, problems := parseEnvFile(data)
	for _, pr := range problems {
		pos := Position{File: path, Line: pr.line}
		if pr.line > 0 {
			pos.Column = 1
		}
		p.errs = append(p.errs, Diagnostic{Pos: pos, Server: r.name, Field: "envFile", Message: pr.message})
	}
	if env == nil && len(fromFile) > 0 {
		env = map[string]string{}
	}
	for k, val := range fromFile {
		if _, set := env[k]; !set {
			env[k] = val
		}
	}
	return env
}

// checkURL accepts only absolute http(s) URLs: anything else cannot be an
// MCP endpoint, and catching it here beats a confusing dial error later.
func (p *parser) checkURL(r *rawServer, raw string) {
	off := r.fields["url"].StartOffset
	u, err := url.Parse(raw)
	if p.unapproved {
		// Quote what the file says, not what its variables expanded to: a
		// hostile "url": "${AWS_SECRET_ACCESS_KEY}" must not get the value
		// printed before anyone approved the file.
		raw = r.url
	}
	switch {
	case err != nil:
		p.errorf(off, r.name, "url", "%q is not a valid URL: %v", raw, unwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https":
		p.errorf(off, r.name, "url", "%q is not an http:// or https:// URL", raw)
	case u.Host == "":
		p.errorf(off, r.name, "url", "%q has no host", raw)
	}
}

// needsInput explains why a server using VS Code inputs cannot start.
func (p *parser) needsInput(refs []string) string {
	parts := make([]string, len(refs))
	for i, ref := range refs {
		id := strings.TrimSuffix(strings.TrimPrefix(ref, "${input:"), "}")
		desc, declared := p.exp.inputs[id]
		switch {
		case !declared:
			parts[i] = ref + " (not declared in \"inputs\")"
		case desc != "":
			parts[i] = fmt.Sprintf("%s (%q, a VS Code prompt input)", ref, desc)
		default:
			parts[i] = ref + " (a VS Code prompt input)"
		}
	}
	return "needs input: " + strings.Join(parts, ", ") + "; mcpdeck cannot prompt for it: put the value in the environment and use ${env:NAME} instead"
}

// unwrapPathError drops the *PathError's repetition of the path, which the
// message already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// unwrapURLError drops the *url.Error's repetition of the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
