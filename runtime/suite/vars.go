package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/theory/jsonpath"
)

// Variables a suite's strings may hold:
//
//	${steps.ID.result}          the result document of the earlier step ID
//	${steps.ID.result.a[0].b}   a JSONPath into it ($.a[0].b), one value
//	${env:NAME}                 the environment variable NAME (must be set)
//	${env:NAME:-default}        ... or default when it is unset or empty
//	${input:ID}                 the suite's inputs: value ID
//	$${                         a literal ${
//
// A string that is exactly one ${steps...} reference takes the referenced
// value with its JSON type (a number stays a number, an object an
// object); inside a longer string a value that is not a string is written
// as compact JSON.

// ref is one ${...} in a string.
type ref struct {
	start, end int    // the bytes of "${...}" in the string
	kind       string // "steps", "env", "input"
	name       string // step id, variable name, input id
	path       string // steps: a JSONPath ("$" for the whole result)
	def        string // env: the default
	hasDef     bool
}

var envVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// refs finds the variables of s; an escaped "$${" is not one.
func refs(s string) ([]ref, error) {
	var out []ref
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		if s[i+1] == '$' && i+2 < len(s) && s[i+2] == '{' {
			i += 2 // $${: a literal
			continue
		}
		if s[i+1] != '{' {
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unterminated variable %q: add the closing }", s[i:])
		}
		// A JSONPath filter may hold braces-free text only; the first }
		// ends the variable.
		body := s[i+2 : i+end]
		r, err := parseRef(body)
		if err != nil {
			return nil, err
		}
		r.start, r.end = i, i+end+1
		out = append(out, r)
		i += end
	}
	return out, nil
}

func parseRef(body string) (ref, error) {
	switch {
	case strings.HasPrefix(body, "env:"):
		name, def, hasDef := strings.Cut(strings.TrimPrefix(body, "env:"), ":-")
		if !envVar().MatchString(name) {
			return ref{}, fmt.Errorf("${%s}: %q is not an environment variable name", body, name)
		}
		return ref{kind: "env", name: name, def: def, hasDef: hasDef}, nil
	case strings.HasPrefix(body, "input:"):
		id := strings.TrimPrefix(body, "input:")
		if id == "" {
			return ref{}, fmt.Errorf("${input:} names no input")
		}
		return ref{kind: "input", name: id}, nil
	case strings.HasPrefix(body, "steps."):
		rest := strings.TrimPrefix(body, "steps.")
		id, tail, _ := strings.Cut(rest, ".")
		if id == "" || !strings.HasPrefix(tail, "result") {
			return ref{}, fmt.Errorf("${%s}: write ${steps.ID.result} or ${steps.ID.result.PATH}", body)
		}
		path := "$" + strings.TrimPrefix(tail, "result")
		if _, err := jsonpath.Parse(path); err != nil {
			return ref{}, fmt.Errorf("${%s}: %q is not a JSONPath query: %v", body, path, err)
		}
		return ref{kind: "steps", name: id, path: path}, nil
	}
	return ref{}, fmt.Errorf("unknown variable ${%s}: use ${steps.ID.result...}, ${env:NAME} or ${input:ID}", body)
}

// scope is what variables resolve against while a suite runs.
type scope struct {
	results   map[string]any // step id → result document
	failed    map[string]bool
	lookupEnv func(string) (string, bool)
	inputs    map[string]string
}

// expand replaces the variables in every string of v, a JSON value.
func (sc *scope) expand(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return sc.expandString(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var err error
			if out[k], err = sc.expand(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = sc.expand(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// expandText is expand for a string that must stay one.
func (sc *scope) expandText(s string) (string, error) {
	v, err := sc.expandString(s)
	if err != nil {
		return "", err
	}
	if str, ok := v.(string); ok {
		return str, nil
	}
	b, _ := json.Marshal(v)
	return string(b), nil
}

func (sc *scope) expandString(s string) (any, error) {
	rs, err := refs(s)
	if err != nil {
		return nil, err
	}
	if len(rs) == 1 && rs[0].start == 0 && rs[0].end == len(s) {
		return sc.resolve(rs[0])
	}
	var b strings.Builder
	last := 0
	for _, r := range rs {
		b.WriteString(s[last:r.start])
		v, err := sc.resolve(r)
		if err != nil {
			return nil, err
		}
		if str, ok := v.(string); ok {
			b.WriteString(str)
		} else {
			j, _ := json.Marshal(v)
			b.Write(j)
		}
		last = r.end
	}
	b.WriteString(s[last:])
	return strings.ReplaceAll(b.String(), "$${", "${"), nil
}

func (sc *scope) resolve(r ref) (any, error) {
	switch r.kind {
	case "env":
		v, ok := sc.lookupEnv(r.name)
		if (!ok || v == "") && r.hasDef {
			return r.def, nil
		}
		if !ok {
			return nil, fmt.Errorf("${env:%s}: the environment variable %s is not set; set it or give a default with ${env:%s:-VALUE}", r.name, r.name, r.name)
		}
		return v, nil
	case "input":
		v, ok := sc.inputs[r.name]
		if !ok {
			return nil, fmt.Errorf("${input:%s}: the suite's inputs: give no %q", r.name, r.name)
		}
		return v, nil
	}
	if sc.failed[r.name] {
		return nil, fmt.Errorf("${steps.%s...}: step %s failed, so its result cannot be used", r.name, r.name)
	}
	doc, ok := sc.results[r.name]
	if !ok {
		return nil, fmt.Errorf("${steps.%s...}: step %s has no result (it did not run, or failed with an error)", r.name, r.name)
	}
	got, err := selectOne(r.path, doc)
	if err != nil {
		return nil, fmt.Errorf("${steps.%s.result%s}: %w", r.name, strings.TrimPrefix(r.path, "$"), err)
	}
	return got, nil
}

// ExpandInline resolves the variables (${env:NAME}, ${input:ID}) of an
// inline server's command, arguments, environment, URL and headers.
func ExpandInline(in *InlineServer, inputs map[string]string, lookupEnv func(string) (string, bool)) (*InlineServer, error) {
	sc := &scope{lookupEnv: lookupEnv, inputs: inputs}
	out := *in
	var err error
	text := func(s string) string {
		if err != nil {
			return s
		}
		var v string
		v, err = sc.expandText(s)
		return v
	}
	out.Command, out.URL, out.Cwd = text(in.Command), text(in.URL), text(in.Cwd)
	out.Args = make([]string, len(in.Args))
	for i, a := range in.Args {
		out.Args[i] = text(a)
	}
	out.Env, out.Headers = map[string]string{}, map[string]string{}
	for k, v := range in.Env {
		out.Env[k] = text(v)
	}
	for k, v := range in.Headers {
		out.Headers[k] = text(v)
	}
	return &out, err
}
