package suite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
	"github.com/theory/jsonpath"
)

// Ext is how a suite file's name ends.
const Ext = ".mcptest.yaml"

// ParseFile reads and parses one suite file.
func ParseFile(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{Pos: Pos{File: path}, Msg: fmt.Sprintf("cannot read the suite: %v", err)}}
	}
	return Parse(path, data)
}

// Parse parses a suite. Every problem is reported, each with its
// file:line:col, as an Errors value.
func Parse(path string, data []byte) (*Suite, error) {
	p := &parser{file: path}
	var doc any
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.UseOrderedMap()); err != nil {
		return nil, Errors{p.yamlError(err)}
	}
	// The AST is read only for positions; the values come from the
	// decoded document, which resolves anchors and aliases.
	if f, err := yamlparser.ParseBytes(data, 0); err == nil && len(f.Docs) > 0 {
		p.root = f.Docs[0].Body
	}
	top, ok := doc.(yaml.MapSlice)
	if !ok {
		return nil, Errors{{Pos: Pos{File: path, Line: 1, Column: 1}, Msg: "a suite is a mapping with server: and steps: (see runtime/suite/FORMAT.md)"}}
	}
	s := p.suite(top)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return s, nil
}

// parser turns a decoded suite into a Suite, collecting every problem.
type parser struct {
	file string
	root ast.Node
	errs Errors
	ids  map[string]int // step id → index
}

// at is a place in the document: keys (string) and indexes (int).
type at []any

func (a at) key(k any) at { return append(slices.Clip(a), k) }

func (a at) String() string {
	var b strings.Builder
	for _, k := range a {
		switch k := k.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, k)
		}
	}
	return b.String()
}

func (p *parser) errorf(where at, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(where) > 0 {
		msg = where.String() + ": " + msg
	}
	p.errs = append(p.errs, Error{Pos: p.pos(where), Msg: msg})
}

// yamlError places a YAML decoding error.
func (p *parser) yamlError(err error) Error {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		tk := ye.GetToken()
		return Error{Pos: Pos{File: p.file, Line: tk.Position.Line, Column: tk.Position.Column}, Msg: "invalid YAML: " + ye.GetMessage()}
	}
	return Error{Pos: Pos{File: p.file}, Msg: "invalid YAML: " + err.Error()}
}

// pos finds where in the file a place is: the key of a mapping entry, or
// the element of a sequence; the nearest enclosing place when the exact
// one is not in the AST (a value that came through an alias).
func (p *parser) pos(where at) Pos {
	n := p.root
	best := Pos{File: p.file}
	if n != nil {
		best = p.tokenPos(n)
	}
	for _, k := range where {
		n = unwrap(n)
		switch node := n.(type) {
		case *ast.MappingNode:
			var found ast.Node
			for _, mv := range node.Values {
				if ks, ok := k.(string); ok && keyText(mv.Key) == ks {
					best, found = p.tokenPos(mv.Key), mv.Value
					break
				}
			}
			if found == nil {
				return best
			}
			n = found
		case *ast.MappingValueNode:
			if ks, ok := k.(string); !ok || keyText(node.Key) != ks {
				return best
			}
			best, n = p.tokenPos(node.Key), node.Value
		case *ast.SequenceNode:
			i, ok := k.(int)
			if !ok || i >= len(node.Values) {
				return best
			}
			n = node.Values[i]
			best = p.tokenPos(n)
		default:
			return best
		}
	}
	return best
}

func unwrap(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.TagNode:
			n = x.Value
		default:
			return n
		}
	}
}

func keyText(k ast.MapKeyNode) string {
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return k.String()
}

func (p *parser) tokenPos(n ast.Node) Pos {
	// A block mapping's token is its first ':'; people look for its
	// first key.
	switch m := unwrap(n).(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 && !m.IsFlowStyle {
			n = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		n = m.Key
	}
	if n == nil || n.GetToken() == nil {
		return Pos{File: p.file}
	}
	tp := n.GetToken().Position
	return Pos{File: p.file, Line: tp.Line, Column: tp.Column}
}

// fields checks a mapping's keys against the known ones and returns it
// as a map. Unknown keys are errors with a suggestion.
func (p *parser) fields(v any, where at, what string, known ...string) (map[string]any, []string, bool) {
	m, ok := v.(yaml.MapSlice)
	if !ok {
		p.errorf(where, "%s must be a mapping, not %s", what, kindOf(v))
		return nil, nil, false
	}
	out := map[string]any{}
	var order []string
	for _, it := range m {
		k, ok := it.Key.(string)
		if !ok {
			p.errorf(where, "keys must be strings, not %s", kindOf(it.Key))
			continue
		}
		if known != nil && !slices.Contains(known, k) {
			p.errorf(where.key(k), "unknown field %q in %s%s (fields: %s)", k, what, suggest(k, known), strings.Join(known, ", "))
			continue
		}
		out[k] = it.Value
		order = append(order, k)
	}
	return out, order, true
}

func (p *parser) str(v any, where at) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		p.errorf(where, "is empty; give a value")
	default:
		p.errorf(where, "must be a string, not %s", kindOf(v))
	}
	return "", false
}

func (p *parser) boolean(v any, where at) bool {
	b, ok := v.(bool)
	if !ok {
		p.errorf(where, "must be true or false, not %s", kindOf(v))
	}
	return b
}

func (p *parser) duration(v any, where at) time.Duration {
	s, ok := v.(string)
	if !ok {
		p.errorf(where, "must be a duration such as 500ms, 2s or 1m30s, not %s", kindOf(v))
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		p.errorf(where, "%q is not a positive duration; write e.g. 500ms, 2s or 1m30s", s)
		return 0
	}
	return d
}

func (p *parser) strList(v any, where at) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	list, ok := v.([]any)
	if !ok {
		p.errorf(where, "must be a list of strings, not %s", kindOf(v))
		return nil
	}
	var out []string
	for i, e := range list {
		if s, ok := p.str(e, where.key(i)); ok {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) strMap(v any, where at) map[string]string {
	m, order, ok := p.fields(v, where, where.String())
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, k := range order {
		switch x := m[k].(type) {
		case string:
			out[k] = x
		case bool, uint64, int64, float64:
			out[k] = fmt.Sprint(x)
		default:
			p.errorf(where.key(k), "must be a string, not %s", kindOf(x))
		}
	}
	return out
}

// value converts a decoded YAML value to JSON's data model.
func (p *parser) value(v any, where at) any {
	out, err := plain(v)
	if err != nil {
		p.errorf(where, "%v", err)
	}
	return out
}

// plain converts YAML's decoded values (ordered maps, integers) to JSON's
// data model: map[string]any, []any, string, float64, bool, nil.
func plain(v any) (any, error) {
	switch x := v.(type) {
	case yaml.MapSlice:
		m := make(map[string]any, len(x))
		for _, it := range x {
			k, ok := it.Key.(string)
			if !ok {
				return nil, fmt.Errorf("a key of a JSON object must be a string, not %s", kindOf(it.Key))
			}
			e, err := plain(it.Value)
			if err != nil {
				return nil, err
			}
			m[k] = e
		}
		return m, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = plain(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case uint64:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case int:
		return float64(x), nil
	case float64, string, bool, nil:
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	}
	return nil, fmt.Errorf("%s cannot be written in JSON", kindOf(v))
}

func kindOf(v any) string {
	switch v.(type) {
	case yaml.MapSlice, map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "nothing"
	case uint64, int64, int, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

var suiteFields = []string{"name", "server", "protocol", "timeout", "inputs", "ignore", "steps"}

func (p *parser) suite(top yaml.MapSlice) *Suite {
	s := &Suite{Path: p.file, Name: strings.TrimSuffix(filepath.Base(p.file), Ext), Protocols: []string{""}}
	s.SnapshotPath = snapshotPath(p.file)
	m, _, _ := p.fields(top, nil, "the suite", suiteFields...)
	if v, ok := m["name"]; ok {
		s.Name, _ = p.str(v, at{"name"})
	}
	if v, ok := m["server"]; ok {
		s.Server = p.server(v)
	} else {
		p.errorf(nil, "the suite names no server: add server: NAME (from mcp.json) or an inline server: {command: ..., args: [...]} or {url: ...}")
	}
	if v, ok := m["protocol"]; ok {
		s.Protocols = p.protocols(v)
	}
	if v, ok := m["timeout"]; ok {
		s.Timeout = p.duration(v, at{"timeout"})
	}
	if v, ok := m["inputs"]; ok {
		s.Inputs = p.strMap(v, at{"inputs"})
	}
	if v, ok := m["ignore"]; ok {
		s.Ignore = p.paths(v, at{"ignore"})
	}
	steps, ok := m["steps"].([]any)
	if !ok {
		if _, given := m["steps"]; given {
			p.errorf(at{"steps"}, "must be a list of steps, not %s", kindOf(m["steps"]))
		} else {
			p.errorf(nil, "the suite has no steps: add steps: with at least one step")
		}
		return s
	}
	p.ids = map[string]int{}
	for i, v := range steps {
		s.Steps = append(s.Steps, p.step(v, i))
	}
	if len(steps) == 0 {
		p.errorf(at{"steps"}, "is empty: add at least one step")
	}
	return s
}

func (p *parser) server(v any) ServerRef {
	where := at{"server"}
	ref := ServerRef{Pos: p.pos(where)}
	if name, ok := v.(string); ok {
		if name == "" {
			p.errorf(where, "is empty; name a server of mcp.json")
		}
		ref.Name = name
		return ref
	}
	m, _, ok := p.fields(v, where, "an inline server", "command", "args", "env", "cwd", "url", "headers", "transport")
	if !ok {
		return ref
	}
	in := &InlineServer{}
	if v, ok := m["command"]; ok {
		in.Command, _ = p.str(v, where.key("command"))
	}
	if v, ok := m["args"]; ok {
		in.Args = p.strList(v, where.key("args"))
	}
	if v, ok := m["env"]; ok {
		in.Env = p.strMap(v, where.key("env"))
	}
	if v, ok := m["cwd"]; ok {
		in.Cwd, _ = p.str(v, where.key("cwd"))
	}
	if v, ok := m["url"]; ok {
		in.URL, _ = p.str(v, where.key("url"))
	}
	if v, ok := m["headers"]; ok {
		in.Headers = p.strMap(v, where.key("headers"))
	}
	if v, ok := m["transport"]; ok {
		in.Transport, _ = p.str(v, where.key("transport"))
	}
	switch {
	case in.Command == "" && in.URL == "":
		p.errorf(where, "an inline server needs command: (a stdio server) or url: (a remote one)")
	case in.Command != "" && in.URL != "":
		p.errorf(where, "give either command: or url:, not both")
	case in.Command != "" && (len(in.Headers) > 0 || in.Transport != ""):
		p.errorf(where, "headers: and transport: go with url:")
	case in.URL != "" && (len(in.Args) > 0 || len(in.Env) > 0 || in.Cwd != ""):
		p.errorf(where, "args:, env: and cwd: go with command:")
	case in.Transport != "" && in.Transport != "http" && in.Transport != "sse" && in.Transport != "streamable-http":
		p.errorf(where.key("transport"), "%q: use http or sse", in.Transport)
	}
	for _, f := range append(append([]string{in.Command, in.URL, in.Cwd}, in.Args...), append(mapValues(in.Env), mapValues(in.Headers)...)...) {
		rs, err := refs(f)
		if err != nil {
			p.errorf(where, "%v", err)
		}
		for _, r := range rs {
			if r.kind == "steps" {
				p.errorf(where, "the server cannot use ${steps...}: it starts before any step runs; use ${env:NAME} or ${input:ID}")
			}
		}
	}
	ref.Inline = in
	return ref
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// revision is a protocol revision's shape, as --protocol accepts it.
var revision = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

func (p *parser) protocols(v any) []string {
	where := at{"protocol"}
	list := p.strList(v, where)
	if len(list) == 0 {
		p.errorf(where, "is empty; give auto, legacy, modern or a revision (or a list of them)")
		return []string{""}
	}
	seen := map[string]bool{}
	for i, s := range list {
		if s != "auto" && s != "legacy" && s != "modern" && !revision().MatchString(s) {
			p.errorf(where.key(i), "%q: use auto, legacy, modern or a revision such as 2025-06-18", s)
		}
		if seen[s] {
			p.errorf(where.key(i), "%q is listed twice", s)
		}
		seen[s] = true
	}
	return list
}

func (p *parser) paths(v any, where at) []string {
	list := p.strList(v, where)
	for i, s := range list {
		p.checkPath(s, where.key(i))
	}
	return list
}

func (p *parser) checkPath(s string, where at) {
	if _, err := jsonpath.Parse(s); err != nil {
		p.errorf(where, "%q is not a JSONPath query (RFC 9535, starting with $): %v", s, err)
	}
}

// suggest says "did you mean" for a near miss among names.
func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := levenshtein.ComputeDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
