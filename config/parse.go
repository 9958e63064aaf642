package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// maxFileSize bounds a configuration file. Real ones are a few kilobytes;
// the bound keeps a wrong path (a log, a binary) from costing real time.
const maxFileSize = 4 << 20

// serverName is the rule for server names: they become tool-name prefixes
// and file names elsewhere, so they stay short and unambiguous.
var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })

// Parse parses one configuration file. path names it in diagnostics and
// Source; scope is recorded on each server. It returns the servers in file
// order and the warnings; the error is Errors listing every problem (and
// then no servers, unless opts.KeepInvalid: then every server, the broken
// ones marked Invalid), or an error from resolving opts.
func Parse(path string, data []byte, scope Scope, opts LoadOptions) ([]Server, []Diagnostic, error) {
	servers, _, warns, err := parseFile(path, data, scope, opts)
	return servers, warns, err
}

// fileBlocks are a file's top-level blocks besides its servers: nil when
// it has none, or when the file has problems.
type fileBlocks struct {
	gateway *Gateway
	alerts  *Alerts
}

// parseFile is Parse that also returns the file's gateway and alerts blocks.
func parseFile(path string, data []byte, scope Scope, opts LoadOptions) ([]Server, fileBlocks, []Diagnostic, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fileBlocks{}, nil, err
	}
	p := newParser(path, data, scope, opts)
	p.unapproved = !opts.approved(File{Path: path, Scope: scope, Hash: contentHash(data)})
	p.exp.literalEnv = p.unapproved
	servers := p.parseFile()
	sortDiagnostics(p.warns, nil)
	if len(p.errs) > 0 {
		sortDiagnostics(p.errs, nil)
		if opts.KeepInvalid {
			return servers, fileBlocks{}, p.warns, Errors(p.errs) // Load keeps the servers marked Invalid
		}
		return nil, fileBlocks{}, p.warns, Errors(p.errs)
	}
	return servers, fileBlocks{gateway: p.gateway, alerts: p.alerts}, p.warns, nil
}

// parser holds the state of parsing one file.
type parser struct {
	path    string
	data    []byte
	scope   Scope
	opts    LoadOptions
	baseDir string // where relative cwd and envFile paths resolve
	exp     *expander
	gateway *Gateway // the file's "gateway" block, if any
	alerts  *Alerts  // the file's "alerts" block, if any
	lines   []int    // byte offset of each line start, built on first use
	// unapproved is set for a project file whose content is not approved:
	// nothing it names is read, and no value it expanded to is quoted.
	unapproved bool
	// inherit is the file's top-level "envInherit", else the caller's.
	inherit EnvInherit
	// fileRoots are the file's top-level "roots": the roots of its
	// servers that name none of their own.
	fileRoots []string
	errs      []Diagnostic
	warns     []Diagnostic
}

func newParser(path string, data []byte, scope Scope, opts LoadOptions) *parser {
	base := filepath.Dir(path)
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	if scope == ScopeProject || scope == ScopeDefault {
		base = opts.ProjectDir
	}
	return &parser{
		path: path, data: data, scope: scope, opts: opts, baseDir: base,
		exp:     &expander{vars: opts.predefined(), lookupEnv: opts.LookupEnv, home: opts.home()},
		inherit: opts.EnvInherit,
	}
}

// pos converts a byte offset into a position with a character column.
func (p *parser) pos(off int) Position {
	if p.lines == nil {
		p.lines = []int{0}
		for i, c := range p.data {
			if c == '\n' {
				p.lines = append(p.lines, i+1)
			}
		}
	}
	off = min(max(off, 0), len(p.data))
	line, _ := slices.BinarySearch(p.lines, off+1)
	start := p.lines[line-1]
	return Position{File: p.path, Line: line, Column: utf8.RuneCount(p.data[start:off]) + 1}
}

func (p *parser) errorf(off int, server, field, format string, args ...any) {
	p.errs = append(p.errs, Diagnostic{Pos: p.pos(off), Server: server, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) warnf(off int, server, field, format string, args ...any) {
	p.warns = append(p.warns, Diagnostic{Pos: p.pos(off), Server: server, Field: field, Message: fmt.Sprintf(format, args...)})
}

// untrusted reports whether m, a setting only the person's own files may
// make (a --config file or their user mcp.json: never a project's, which
// anyone can commit), is in a file of another scope; it then warns that m
// is ignored, and why (what to do instead).
func (p *parser) untrusted(m member, field, why string) bool {
	if p.scope == ScopeExplicit || p.scope == ScopeUser {
		return false
	}
	p.warnf(m.keyOff, "", field, "is ignored in a %s file: %s", p.scope, why)
	return true
}

// member is one object member with the offsets diagnostics point at.
type member struct {
	name   string
	keyOff int
	value  *hujson.Value
}

// members lists an object's members, reporting duplicate keys: JSON
// readers disagree on which duplicate wins, so a duplicate is a mistake.
func (p *parser) members(obj *hujson.Object, server, field string) []member {
	var out []member
	seen := map[string]bool{}
	for i := range obj.Members {
		m := &obj.Members[i]
		name := m.Name.Value.(hujson.Literal).String()
		if seen[name] {
			f := name
			if field != "" {
				f = field + "." + name
			}
			if server == "" && field == "" {
				p.errorf(m.Name.StartOffset, "", "", "%q is defined twice; remove one", name)
			} else {
				p.errorf(m.Name.StartOffset, server, f, "defined twice; remove one")
			}
			continue
		}
		seen[name] = true
		out = append(out, member{name: name, keyOff: m.Name.StartOffset, value: &m.Value})
	}
	return out
}

// parseFile parses the top level and returns the servers in file order.
func (p *parser) parseFile() []Server {
	if len(p.data) > maxFileSize {
		p.errs = append(p.errs, Diagnostic{Pos: Position{File: p.path}, Message: fmt.Sprintf("file is larger than %d bytes; is this the right file?", maxFileSize)})
		return nil
	}
	if off := nestingTooDeep(p.data); off >= 0 {
		p.errorf(off, "", "", "objects and arrays nest deeper than %d levels here; an mcp.json needs a handful, so this is not a configuration file mcpdeck can use", maxNesting)
		return nil
	}
	root, err := hujson.Parse(p.data)
	if err != nil {
		p.syntaxError(err)
		return nil
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		p.errorf(root.StartOffset, "", "", `the top level must be an object like {"mcpServers": {...}}, not %s`, kindName(root.Value.Kind()))
		return nil
	}
	var servers, disabled, inputs, gateway, alerts *member
	var serversKey string
	diagnosed := false // a top-level field said where the servers went
	for _, m := range p.members(obj, "", "") {
		switch m.name {
		case "mcpServers", "servers":
			if servers != nil {
				p.errorf(m.keyOff, "", "", `both %q and %q are present; keep one ("servers" is VS Code's format, "mcpServers" the other clients')`, serversKey, m.name)
				continue
			}
			servers, serversKey = &m, m.name
		case "disabledServers":
			disabled = &m
		case "inputs":
			inputs = &m
		case "gateway":
			gateway = &m
		case "alerts":
			alerts = &m
		case "envInherit":
			if inh, ok := p.envInherit(m.value, "", m.name); ok {
				p.inherit = inh
			}
		case "roots":
			p.fileRoots, _ = p.roots(m.value, "")
		case "$schema":
		default:
			diagnosed = p.unknownTop(m) || diagnosed
		}
	}
	p.exp.inputs = p.parseInputs(inputs)
	p.gateway = p.parseGateway(gateway)
	p.alerts = p.parseAlerts(alerts)
	if servers == nil {
		if !diagnosed {
			p.warnf(root.StartOffset, "", "", `no "mcpServers" or "servers" object; this file defines no servers`)
		}
		return nil
	}
	list := p.parseServers(servers)
	p.applyDisabled(disabled, list)
	return list
}

// unknownTop warns of a top-level field mcpdeck does not read, and
// reports whether it diagnosed where the file's servers went. Three
// mistakes that leave every server out are said as such, Loud (every
// command shows them, not only config validate): a misspelt "mcpServers"
// ("mcp_servers"); a server written without the object around it, as a
// README's snippet is often copied ({"github": {"command": …}}); and the
// servers one level down, as VS Code's settings.json holds them ("mcp":
// {"servers": …}).
func (p *parser) unknownTop(m member) bool {
	loud := func(format string, args ...any) bool {
		p.warnf(m.keyOff, "", "", format, args...)
		p.warns[len(p.warns)-1].Loud = true
		return true
	}
	if near := nearest(m.name, []string{"mcpServers", "servers"}); near != "" {
		return loud("unknown top-level field %q is ignored (did you mean %s?)", m.name, near)
	}
	if obj, ok := m.value.Value.(*hujson.Object); ok {
		for _, f := range obj.Members {
			switch name := f.Name.Value.(hujson.Literal).String(); name {
			case "command", "url":
				return loud(`unknown top-level field %q is ignored: it looks like a server (it has %q), and servers go inside "mcpServers": {"mcpServers": {%q: {…}}}`, m.name, name, m.name)
			case "mcpServers", "servers":
				return loud(`unknown top-level field %q is ignored: it holds %q, which mcpdeck reads at the top level of the file: {%q: {…}}`, m.name, name, name)
			}
		}
	}
	p.warnf(m.keyOff, "", "", "unknown top-level field %q is ignored", m.name)
	return false
}

// syntaxError turns hujson's "hujson: line L, column C: msg" into a
// diagnostic with a character column.
func (p *parser) syntaxError(err error) {
	msg := err.Error()
	var line, col int
	if _, scanErr := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); scanErr == nil && line > 0 {
		msg = strings.TrimPrefix(msg, fmt.Sprintf("hujson: line %d, column %d: ", line, col))
		start := 0
		for l := 1; l < line; l++ {
			i := bytes.IndexByte(p.data[start:], '\n')
			if i < 0 {
				break
			}
			start += i + 1
		}
		p.errorf(start+col-1, "", "", "invalid JSON: %s", msg)
		return
	}
	p.errs = append(p.errs, Diagnostic{Pos: Position{File: p.path}, Message: "invalid JSON: " + strings.TrimPrefix(msg, "hujson: ")})
}

// parseInputs reads VS Code's "inputs" for the descriptions NeedsInput
// messages name.
func (p *parser) parseInputs(m *member) map[string]string {
	out := map[string]string{}
	if m == nil {
		return out
	}
	arr, ok := m.value.Value.(*hujson.Array)
	if !ok {
		p.errorf(m.value.StartOffset, "", "inputs", "must be an array of input objects, not %s", kindName(m.value.Value.Kind()))
		return out
	}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		field := fmt.Sprintf("inputs[%d]", i)
		obj, ok := p.object(el, "", field, "an object with an \"id\"")
		if !ok {
			continue
		}
		var id, desc string
		for _, im := range p.members(obj, "", field) {
			switch im.name {
			case "id":
				id, _ = p.str(im.value, "", field+".id")
			case "description":
				desc, _ = p.str(im.value, "", field+".description")
			}
		}
		if id == "" {
			p.errorf(el.StartOffset, "", field, `has no "id"`)
			continue
		}
		out[id] = desc
	}
	return out
}

// parseServers parses the "mcpServers"/"servers" object.
func (p *parser) parseServers(m *member) []Server {
	obj, ok := p.object(m.value, "", m.name, "an object mapping server names to servers")
	if !ok {
		return nil
	}
	var out []Server
	for _, sm := range p.members(obj, "", m.name) {
		before := len(p.errs)
		if !serverName().MatchString(sm.name) {
			p.errorf(sm.keyOff, sm.name, "", "invalid server name: use 1 to 64 letters, digits, '_', '.' or '-'")
		}
		if s, ok := p.parseServer(sm); ok && len(p.errs) == before {
			out = append(out, s)
		} else if p.opts.KeepInvalid {
			inv := p.invalidServer(sm, p.errs[before:])
			if s.Name != "" { // its definition is an object: its "disabled"/"enabled" was read
				inv.Enabled = s.Enabled // a disabled server stays disabled: nothing would start it
			}
			out = append(out, inv)
		}
	}
	return out
}

// applyDisabled applies "disabledServers" to this file's servers.
func (p *parser) applyDisabled(m *member, list []Server) {
	if m == nil {
		return
	}
	arr, ok := m.value.Value.(*hujson.Array)
	if !ok {
		p.errorf(m.value.StartOffset, "", "disabledServers", "must be an array of server names, not %s", kindName(m.value.Value.Kind()))
		return
	}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		field := fmt.Sprintf("disabledServers[%d]", i)
		name, ok := p.str(el, "", field)
		if !ok {
			continue
		}
		j := slices.IndexFunc(list, func(s Server) bool { return s.Name == name })
		if j < 0 {
			p.warnf(el.StartOffset, "", field, "names %q, which this file does not define", name)
			continue
		}
		list[j].Enabled = false
	}
}

// kindName names a JSON kind for "must be X, not Y" messages.
func kindName(k hujson.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "an invalid value"
}
