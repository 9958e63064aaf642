package suite

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
)

var stepFields = []string{"id", "name", "list", "call", "read", "prompt", "complete", "subscribe", "wait",
	"args", "trigger", "where", "timeout", "noValidate", "expect"}

var stepID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func (p *parser) step(v any, i int) Step {
	where := at{"steps", i}
	st := Step{Index: i, Pos: p.pos(where)}
	m, _, ok := p.fields(v, where, "a step", stepFields...)
	if !ok {
		return st
	}
	if v, ok := m["id"]; ok {
		st.ID, _ = p.str(v, where.key("id"))
		switch prev, dup := p.ids[st.ID]; {
		case !stepID().MatchString(st.ID):
			p.errorf(where.key("id"), "%q: an id is letters, digits, - and _ (it names the step in ${steps.ID...} and in snapshots)", st.ID)
		case dup:
			p.errorf(where.key("id"), "%q is also the id of step %d; ids must be unique", st.ID, prev+1)
		default:
			p.ids[st.ID] = i
		}
	}
	if v, ok := m["name"]; ok {
		st.Name, _ = p.str(v, where.key("name"))
	}
	var kinds []string
	for _, k := range Kinds {
		if _, ok := m[string(k)]; ok {
			kinds = append(kinds, string(k))
		}
	}
	switch len(kinds) {
	case 0:
		p.errorf(where, "says nothing to do: give one of %s", kindList())
		return st
	case 1:
	default:
		p.errorf(where, "gives %s: a step does one thing (split it into steps)", strings.Join(kinds, " and "))
		return st
	}
	st.Kind = Kind(kinds[0])
	kw := where.key(kinds[0])
	switch st.Kind {
	case KindComplete:
		st.Complete = p.complete(m["complete"], kw)
	default:
		st.Target, _ = p.str(m[kinds[0]], kw)
		p.checkVars(st.Target, kw)
	}
	switch st.Kind {
	case KindList:
		if _, ok := Listings[st.Target]; !ok && st.Target != "" {
			p.errorf(kw, "%q: list tools, resources, templates or prompts%s", st.Target, suggest(st.Target, sortedKeys(Listings)))
		}
	case KindWait:
		if st.Target != "" && !strings.HasPrefix(st.Target, "notifications/") {
			p.errorf(kw, "%q is not a notification method (they start with notifications/)", st.Target)
		}
	}
	p.only(m, where, st.Kind, "args", KindCall, KindPrompt)
	p.only(m, where, st.Kind, "trigger", KindSubscribe)
	p.only(m, where, st.Kind, "where", KindWait)
	p.only(m, where, st.Kind, "noValidate", KindCall)
	if v, ok := m["args"]; ok {
		st.Args = p.args(v, where.key("args"), st.Kind)
	}
	if v, ok := m["trigger"]; ok {
		st.Trigger = p.trigger(v, where.key("trigger"))
	}
	if v, ok := m["where"]; ok {
		st.Where = p.pathValues(v, where.key("where"), false)
	}
	if v, ok := m["timeout"]; ok {
		st.Timeout = p.duration(v, where.key("timeout"))
	}
	if v, ok := m["noValidate"]; ok {
		st.NoValidate = p.boolean(v, where.key("noValidate"))
	}
	if v, ok := m["expect"]; ok {
		st.Expect = p.expect(v, where.key("expect"), st.Kind)
	}
	return st
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k) + ":"
	}
	return strings.Join(names, ", ")
}

// only reports a field given to a step kind that does not take it.
func (p *parser) only(m map[string]any, where at, kind Kind, field string, kinds ...Kind) {
	if _, ok := m[field]; ok && !slices.Contains(kinds, kind) {
		var names []string
		for _, k := range kinds {
			names = append(names, string(k))
		}
		p.errorf(where.key(field), "goes with %s steps, not %s", strings.Join(names, " and "), kind)
	}
}

func (p *parser) args(v any, where at, kind Kind) any {
	if _, ok := v.(yaml.MapSlice); !ok {
		p.errorf(where, "must be a mapping of argument names to values, not %s", kindOf(v))
		return nil
	}
	out := p.value(v, where)
	if kind == KindPrompt {
		// Prompt arguments are strings on the wire.
		for k, e := range out.(map[string]any) {
			if _, ok := e.(string); !ok {
				p.errorf(where.key(k), "a prompt argument is a string, not %s", kindOf(e))
			}
		}
	}
	p.checkVars(out, where)
	return out
}

func (p *parser) complete(v any, where at) *CompleteSpec {
	m, _, ok := p.fields(v, where, "complete", "prompt", "template", "argument", "value", "context")
	c := &CompleteSpec{}
	if !ok {
		return c
	}
	if v, ok := m["prompt"]; ok {
		c.Prompt, _ = p.str(v, where.key("prompt"))
	}
	if v, ok := m["template"]; ok {
		c.Template, _ = p.str(v, where.key("template"))
	}
	if (c.Prompt == "") == (c.Template == "") {
		p.errorf(where, "give prompt: NAME or template: URI_TEMPLATE (one of them)")
	}
	if v, ok := m["argument"]; ok {
		c.Argument, _ = p.str(v, where.key("argument"))
	} else {
		p.errorf(where, "names no argument: give it inside complete, as in complete: {prompt: P, argument: NAME, value: V}")
	}
	if v, ok := m["value"]; ok {
		if v == nil {
			v = ""
		}
		c.Value, _ = p.str(v, where.key("value"))
	}
	if v, ok := m["context"]; ok {
		c.Context = p.strMap(v, where.key("context"))
	}
	p.checkVars(c.Value, where.key("value"))
	return c
}

func (p *parser) trigger(v any, where at) *Trigger {
	m, _, ok := p.fields(v, where, "trigger", "call", "args")
	if !ok {
		return nil
	}
	t := &Trigger{}
	if v, ok := m["call"]; ok {
		t.Call, _ = p.str(v, where.key("call"))
	} else {
		p.errorf(where, "names no tool: add call: TOOL")
	}
	if v, ok := m["args"]; ok {
		t.Args = p.args(v, where.key("args"), KindCall)
	}
	return t
}

var expectFields = []string{"isError", "error", "equals", "matches", "exists", "absent", "schema", "outputSchema",
	"snapshot", "latency", "notifications"}

func (p *parser) expect(v any, where at, kind Kind) Expect {
	var e Expect
	m, _, ok := p.fields(v, where, "expect", expectFields...)
	if !ok {
		return e
	}
	if v, ok := m["isError"]; ok {
		b := p.boolean(v, where.key("isError"))
		e.IsError = &b
		if kind != KindCall {
			p.errorf(where.key("isError"), "isError is a tool result's; this is a %s step", kind)
		}
	}
	if v, ok := m["error"]; ok {
		e.Error = p.errorExpect(v, where.key("error"))
		if kind == KindWait || kind == KindSubscribe {
			p.errorf(where.key("error"), "a %s step cannot expect an error response", kind)
		}
	}
	if v, ok := m["equals"]; ok {
		e.Equals = p.pathValues(v, where.key("equals"), false)
	}
	if v, ok := m["matches"]; ok {
		e.Matches = p.pathValues(v, where.key("matches"), true)
	}
	if v, ok := m["exists"]; ok {
		e.Exists = p.pathRefs(v, where.key("exists"))
	}
	if v, ok := m["absent"]; ok {
		e.Absent = p.pathRefs(v, where.key("absent"))
	}
	if v, ok := m["schema"]; ok {
		if _, isMap := v.(yaml.MapSlice); !isMap {
			if _, isBool := v.(bool); !isBool {
				p.errorf(where.key("schema"), "must be a JSON Schema (a mapping), not %s", kindOf(v))
			}
		}
		e.Schema = p.value(v, where.key("schema"))
	}
	if v, ok := m["outputSchema"]; ok {
		e.OutputSchema = p.boolean(v, where.key("outputSchema"))
		if kind != KindCall {
			p.errorf(where.key("outputSchema"), "a tool's outputSchema applies to call steps, not %s", kind)
		}
	}
	if v, ok := m["snapshot"]; ok {
		switch x := v.(type) {
		case bool:
			e.Snapshot = x
		default:
			sm, _, ok := p.fields(v, where.key("snapshot"), "snapshot", "ignore")
			if ok {
				e.Snapshot = true
				if iv, ok := sm["ignore"]; ok {
					e.SnapshotIgnore = p.paths(iv, where.key("snapshot").key("ignore"))
				}
			}
		}
	}
	if v, ok := m["latency"]; ok {
		e.Latency = p.duration(v, where.key("latency"))
	}
	if v, ok := m["notifications"]; ok {
		e.Notifications = p.notifications(v, where.key("notifications"))
	}
	if e.Error != nil && (e.IsError != nil || e.OutputSchema || e.Schema != nil) {
		p.errorf(where.key("error"), "a step that expects an error response has no result to check isError, schema or outputSchema on")
	}
	return e
}

func (p *parser) errorExpect(v any, where at) *ErrorExpect {
	if b, ok := v.(bool); ok {
		if !b {
			p.errorf(where, "error: false is what every step expects already; leave it out")
		}
		return &ErrorExpect{Pos: p.pos(where)}
	}
	m, _, ok := p.fields(v, where, "error", "code", "message")
	if !ok {
		return nil
	}
	e := &ErrorExpect{Pos: p.pos(where)}
	if v, ok := m["code"]; ok {
		switch x := v.(type) {
		case uint64:
			c := int64(x)
			e.Code = &c
		case int64:
			e.Code = &x
		default:
			p.errorf(where.key("code"), "must be an integer JSON-RPC error code such as -32602, not %s", kindOf(v))
		}
	}
	if v, ok := m["message"]; ok {
		e.Message, _ = p.str(v, where.key("message"))
		p.checkRegexp(e.Message, where.key("message"))
	}
	return e
}

// pathValues reads a mapping of JSONPath queries to values (or patterns).
func (p *parser) pathValues(v any, where at, patterns bool) []PathValue {
	ms, ok := v.(yaml.MapSlice)
	if !ok {
		p.errorf(where, "must be a mapping of JSONPath queries to values, not %s", kindOf(v))
		return nil
	}
	var out []PathValue
	for _, it := range ms {
		path, ok := it.Key.(string)
		if !ok {
			p.errorf(where, "keys are JSONPath queries (strings), not %s", kindOf(it.Key))
			continue
		}
		kw := where.key(path)
		p.checkPath(path, kw)
		pv := PathValue{Path: path, Pos: p.pos(kw)}
		if patterns {
			s, ok := p.str(it.Value, kw)
			if ok {
				p.checkRegexp(s, kw)
			}
			pv.Value = s
		} else {
			pv.Value = p.value(it.Value, kw)
			p.checkVars(pv.Value, kw)
		}
		out = append(out, pv)
	}
	return out
}

func (p *parser) pathRefs(v any, where at) []PathRef {
	var out []PathRef
	for i, s := range p.strList(v, where) {
		p.checkPath(s, where.key(i))
		out = append(out, PathRef{Path: s, Pos: p.pos(where.key(i))})
	}
	return out
}

func (p *parser) notifications(v any, where at) []NotificationExpect {
	list, ok := v.([]any)
	if !ok {
		p.errorf(where, "must be a list of {method: ..., min: N} entries, not %s", kindOf(v))
		return nil
	}
	var out []NotificationExpect
	for i, e := range list {
		w := where.key(i)
		m, _, ok := p.fields(e, w, "a notification expectation", "method", "min", "max", "equals", "matches")
		if !ok {
			continue
		}
		n := NotificationExpect{Min: 1, Pos: p.pos(w)}
		if v, ok := m["method"]; ok {
			n.Method, _ = p.str(v, w.key("method"))
			if n.Method != "" && !strings.HasPrefix(n.Method, "notifications/") {
				p.errorf(w.key("method"), "%q is not a notification method (they start with notifications/)", n.Method)
			}
		} else {
			p.errorf(w, "names no method: add method: notifications/progress (or another)")
		}
		if v, ok := m["min"]; ok {
			n.Min = p.count(v, w.key("min"))
		}
		if v, ok := m["max"]; ok {
			c := p.count(v, w.key("max"))
			n.Max = &c
		}
		if n.Max != nil && *n.Max < n.Min {
			p.errorf(w, "max %d is below min %d", *n.Max, n.Min)
		}
		if v, ok := m["equals"]; ok {
			n.Equals = p.pathValues(v, w.key("equals"), false)
		}
		if v, ok := m["matches"]; ok {
			n.Matches = p.pathValues(v, w.key("matches"), true)
		}
		out = append(out, n)
	}
	return out
}

func (p *parser) count(v any, where at) int {
	if n, ok := v.(uint64); ok {
		return int(n)
	}
	p.errorf(where, "must be a count (0 or more), not %s", kindOf(v))
	return 0
}

func (p *parser) checkRegexp(s string, where at) {
	if _, err := regexp.Compile(s); err != nil {
		p.errorf(where, "%q is not a regular expression (RE2 syntax): %v", s, err)
	}
}

// checkVars checks the variables in every string of v: their syntax,
// that a step they name comes earlier, and that an input exists.
func (p *parser) checkVars(v any, where at) {
	switch x := v.(type) {
	case string:
		rs, err := refs(x)
		if err != nil {
			p.errorf(where, "%v", err)
			return
		}
		for _, r := range rs {
			if r.kind != "steps" {
				continue
			}
			i, ok := p.ids[r.name]
			step := where[1].(int)
			switch {
			case !ok:
				p.errorf(where, "${steps.%s...}: no earlier step has id %s%s", r.name, r.name, suggest(r.name, sortedKeys(p.ids)))
			case i >= step:
				p.errorf(where, "${steps.%s...}: step %s does not come before this one", r.name, r.name)
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p.checkVars(x[k], where.key(k))
		}
	case []any:
		for i, e := range x {
			p.checkVars(e, where.key(i))
		}
	}
}
