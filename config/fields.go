package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// The typed readers below report a wrong type as an error naming the
// server and field and return ok=false, so parsing goes on and every
// problem in the file is reported at once.

func (p *parser) str(v *hujson.Value, server, field string) (string, bool) {
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		return lit.String(), true
	}
	p.errorf(v.StartOffset, server, field, "must be a string, not %s", kindName(v.Value.Kind()))
	return "", false
}

// object reads an object; want says what it must be for the message
// ("an object like {…}", "a URL or an object …").
func (p *parser) object(v *hujson.Value, server, field, want string) (*hujson.Object, bool) {
	if obj, ok := v.Value.(*hujson.Object); ok {
		return obj, true
	}
	p.errorf(v.StartOffset, server, field, "must be %s, not %s", want, kindName(v.Value.Kind()))
	return nil, false
}

func (p *parser) boolean(v *hujson.Value, server, field string) (bool, bool) {
	if lit, ok := v.Value.(hujson.Literal); ok && (lit.Kind() == 't' || lit.Kind() == 'f') {
		return lit.Bool(), true
	}
	p.errorf(v.StartOffset, server, field, "must be true or false, not %s", kindName(v.Value.Kind()))
	return false, false
}

// number reads a JSON number; ok is false (without a diagnostic) when v is
// not one, so callers can try other shapes.
func number(v *hujson.Value) (float64, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

// stringList reads an array of strings, returning each element's offset
// for diagnostics about that element.
func (p *parser) stringList(v *hujson.Value, server, field string) ([]string, []int, bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errorf(v.StartOffset, server, field, "must be an array of strings, not %s", kindName(v.Value.Kind()))
		return nil, nil, false
	}
	list, offs := []string{}, []int{}
	good := true
	for i := range arr.Elements {
		el := &arr.Elements[i]
		s, ok := p.str(el, server, fmt.Sprintf("%s[%d]", field, i))
		good = good && ok
		list, offs = append(list, s), append(offs, el.StartOffset)
	}
	return list, offs, good
}

// stringMap reads an object of strings; keys keep file order so
// diagnostics come out in file order.
func (p *parser) stringMap(v *hujson.Value, server, field string) ([]member, map[string]string, bool) {
	obj, ok := p.object(v, server, field, "an object of strings")
	if !ok {
		return nil, nil, false
	}
	ms := p.members(obj, server, field)
	out := make(map[string]string, len(ms))
	good := true
	for _, m := range ms {
		s, ok := p.str(m.value, server, field+"."+m.name)
		good = good && ok
		out[m.name] = s
	}
	return ms, out, good
}

// durationHint ends every duration error, so the fix is in the message.
const durationHint = `use a number of milliseconds or a duration such as "30s"`

// duration reads a timeout: milliseconds as a number, or a Go duration
// string. Zero means the default (def). With allowOff, "off", false or a
// negative value give 0 (the feature is off); without it they are errors.
func (p *parser) duration(v *hujson.Value, server, field string, def time.Duration, allowOff bool) (time.Duration, bool) {
	var d time.Duration
	switch lit, _ := v.Value.(hujson.Literal); {
	case lit.Kind() == '0':
		ms, ok := number(v)
		if !ok || math.Abs(ms) > float64(math.MaxInt64/int64(time.Millisecond)) {
			p.errorf(v.StartOffset, server, field, "%s is out of range; %s", lit, durationHint)
			return def, false
		}
		d = time.Duration(ms * float64(time.Millisecond))
	case lit.Kind() == '"':
		s := strings.TrimSpace(lit.String())
		if allowOff && strings.EqualFold(s, "off") {
			return 0, true
		}
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			p.errorf(v.StartOffset, server, field, "%q is not a duration; %s", s, durationHint)
			return def, false
		}
	case allowOff && lit.Kind() == 'f':
		return 0, true
	case allowOff && lit.Kind() == 't':
		return def, true
	default:
		p.errorf(v.StartOffset, server, field, "must be a duration, not %s; %s", kindName(v.Value.Kind()), durationHint)
		return def, false
	}
	switch {
	case d == 0:
		return def, true
	case d < 0 && allowOff:
		return 0, true
	case d < 0:
		p.errorf(v.StartOffset, server, field, "must not be negative; %s", durationHint)
		return def, false
	}
	return d, true
}

// reconnectFields are the fields of "autoReconnect", for warnings.
var reconnectFields = []string{"enabled", "maxAttempts", "initialBackoff", "maxBackoff"}

// reconnect reads "autoReconnect": a boolean, or an object refining the
// default policy.
func (p *parser) reconnect(v *hujson.Value, server string) Reconnect {
	r := DefaultReconnect()
	const field = "autoReconnect"
	if lit, ok := v.Value.(hujson.Literal); ok && (lit.Kind() == 't' || lit.Kind() == 'f') {
		r.Enabled = lit.Bool()
		return r
	}
	obj, ok := p.object(v, server, field, "true, false or an object")
	if !ok {
		return r
	}
	for _, m := range p.members(obj, server, field) {
		f := field + "." + m.name
		switch m.name {
		case "enabled":
			r.Enabled, _ = p.boolean(m.value, server, f)
		case "maxAttempts":
			n, ok := number(m.value)
			if !ok || n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
				p.errorf(m.value.StartOffset, server, f, "must be a whole number of attempts (0 means the default, %d)", DefaultMaxAttempts)
				continue
			}
			if n > 0 {
				r.MaxAttempts = int(n)
			}
		case "initialBackoff":
			r.InitialBackoff, _ = p.duration(m.value, server, f, DefaultInitialBackoff, false)
		case "maxBackoff":
			r.MaxBackoff, _ = p.duration(m.value, server, f, DefaultMaxBackoff, false)
		default:
			p.unknown(m.keyOff, server, f, m.name, reconnectFields, "known: "+strings.Join(reconnectFields, ", "))
		}
	}
	if r.InitialBackoff > r.MaxBackoff {
		p.errorf(v.StartOffset, server, field, "initialBackoff (%s) is longer than maxBackoff (%s)", r.InitialBackoff, r.MaxBackoff)
	}
	return r
}

// envInherit reads "envInherit": "all", "default" (the default set only),
// or an array of variable names.
func (p *parser) envInherit(v *hujson.Value, server, field string) (EnvInherit, bool) {
	const hint = `use "all", "default" or a list of variable names such as ["AWS_PROFILE"]`
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		switch lit.String() {
		case "all":
			return EnvInherit{All: true}, true
		case "default", "none":
			return EnvInherit{}, true
		}
		p.errorf(v.StartOffset, server, field, "%q is not a setting; %s", lit.String(), hint)
		return EnvInherit{}, false
	}
	if _, ok := v.Value.(*hujson.Array); !ok {
		p.errorf(v.StartOffset, server, field, "must be a string or an array of names, not %s; %s", kindName(v.Value.Kind()), hint)
		return EnvInherit{}, false
	}
	names, offs, ok := p.stringList(v, server, field)
	if !ok {
		return EnvInherit{}, false
	}
	for i, n := range names {
		if n == "" || strings.ContainsAny(n, "=\x00") {
			p.errorf(offs[i], server, fmt.Sprintf("%s[%d]", field, i), "%q is not an environment variable name", n)
			ok = false
		}
	}
	slices.Sort(names)
	return EnvInherit{Names: slices.Compact(names)}, ok
}
