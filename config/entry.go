package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Entry is one server's definition as a file writes it: its members in the
// order they are written, each value raw JSON. It is what the editing side
// of the package moves between files (Document), converts between clients
// (Client) and builds from the command line (NewStdioEntry, NewRemoteEntry):
// writing an Entry never expands a variable, so a "${env:TOKEN}" stays a
// reference and no secret is resolved into a file.
type Entry []Field

// Field is one member of an Entry.
type Field struct {
	Name  string
	Value json.RawMessage
}

// ErrNotAnEntry means text given as a server's definition is not one.
var ErrNotAnEntry = errors.New("not a server definition")

// Get returns the raw value of the member called name.
func (e Entry) Get(name string) (json.RawMessage, bool) {
	if i := e.index(name); i >= 0 {
		return e[i].Value, true
	}
	return nil, false
}

// String returns the member called name when it is a JSON string.
func (e Entry) String(name string) (string, bool) {
	raw, ok := e.Get(name)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Strings returns the member called name when it is an array of strings.
func (e Entry) Strings(name string) ([]string, bool) {
	raw, ok := e.Get(name)
	if !ok {
		return nil, false
	}
	var s []string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return s, true
}

// Map returns the member called name when it is an object of strings,
// in the order written.
func (e Entry) Map(name string) (Pairs, bool) {
	raw, ok := e.Get(name)
	if !ok {
		return nil, false
	}
	sub, err := ParseEntry(raw)
	if err != nil {
		return nil, false
	}
	var out Pairs
	for _, f := range sub {
		var s string
		if json.Unmarshal(f.Value, &s) != nil {
			return nil, false
		}
		out = append(out, Pair{f.Name, s})
	}
	return out, true
}

func (e Entry) index(name string) int {
	return slices.IndexFunc(e, func(f Field) bool { return f.Name == name })
}

// Set sets the member called name to v (marshalled to JSON), in place when
// it exists and at the end otherwise.
func (e *Entry) Set(name string, v any) {
	raw, err := marshalValue(v)
	if err != nil {
		panic(fmt.Sprintf("config: entry value for %q: %v", name, err)) // our own values always marshal
	}
	if i := e.index(name); i >= 0 {
		(*e)[i].Value = raw
		return
	}
	*e = append(*e, Field{name, raw})
}

// Delete removes the member called name, if present.
func (e *Entry) Delete(name string) {
	if i := e.index(name); i >= 0 {
		*e = slices.Delete(*e, i, i+1)
	}
}

// Clone returns a copy that shares nothing with e.
func (e Entry) Clone() Entry {
	out := make(Entry, len(e))
	for i, f := range e {
		out[i] = Field{f.Name, slices.Clone(f.Value)}
	}
	return out
}

// MarshalJSON writes the members in order.
func (e Entry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := marshalValue(f.Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(f.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ParseEntry reads an object (JSON, or JSONC with comments and trailing
// commas) keeping the order of its members. Comments are dropped.
func ParseEntry(data []byte) (Entry, error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotAnEntry, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	return entryOf(&v)
}

// entryOf converts a parsed object to an Entry, comments dropped.
func entryOf(v *hujson.Value) (Entry, error) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%w: expected an object, found %s", ErrNotAnEntry, kindName(v.Value.Kind()))
	}
	var out Entry
	for _, m := range obj.Members {
		name := m.Name.Value.(hujson.Literal).String()
		if out.index(name) >= 0 {
			return nil, fmt.Errorf("%w: %q is defined twice", ErrNotAnEntry, name)
		}
		val := m.Value.Clone()
		val.Standardize()
		out = append(out, Field{name, json.RawMessage(bytes.TrimSpace(val.Pack()))})
	}
	return out, nil
}

// Pair is one name and value of an env or headers object.
type Pair struct{ Name, Value string }

// Pairs is an env or headers object in the order it is written.
type Pairs []Pair

// MarshalJSON writes the pairs as an object, in order.
func (p Pairs) MarshalJSON() ([]byte, error) {
	e := make(Entry, 0, len(p))
	for _, kv := range p {
		raw, err := marshalValue(kv.Value)
		if err != nil {
			return nil, err
		}
		e = append(e, Field{kv.Name, raw})
	}
	return e.MarshalJSON()
}

// Get returns the value of name.
func (p Pairs) Get(name string) (string, bool) {
	for _, kv := range p {
		if kv.Name == name {
			return kv.Value, true
		}
	}
	return "", false
}

// Set sets name to value, in place when present.
func (p *Pairs) Set(name, value string) {
	for i := range *p {
		if (*p)[i].Name == name {
			(*p)[i].Value = value
			return
		}
	}
	*p = append(*p, Pair{name, value})
}

// marshalValue is json.Marshal without HTML escaping: a "<" in an
// argument stays "<" in the file a person reads.
func marshalValue(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// indentJSON lays raw out over several lines: prefix starts every line
// after the first (the first follows a member's name), unit is one level:
// the layout of JSON.stringify(value, null, 2), which Claude Code and
// Claude Desktop write.
func indentJSON(raw json.RawMessage, prefix, unit string) []byte {
	var out bytes.Buffer
	if json.Indent(&out, raw, prefix, unit) != nil {
		return raw
	}
	return out.Bytes()
}
