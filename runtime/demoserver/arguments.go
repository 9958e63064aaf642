package demoserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// arguments are a tool call's arguments, decoded with UseNumber so numbers
// keep their exact text until a tool asks for one.
type arguments map[string]any

// parseArguments decodes tools/call arguments. Absent or null arguments are
// an empty object; anything but an object is a malformed request (-32602),
// unlike a wrong field, which the tool reports as an isError result.
func parseArguments(raw json.RawMessage) (arguments, *sdkjsonrpc.Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return arguments{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, invalidParams("tools/call: \"arguments\" must be a JSON object, got %s", describeJSON(raw))
	}
	return arguments(m), nil
}

// str returns the required string argument name.
func (a arguments) str(name string) (string, error) {
	v, ok := a[name]
	if !ok {
		return "", fmt.Errorf("argument %q is required (a string)", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("argument %q must be a string, got %s", name, describe(v))
	}
	return s, nil
}

// number returns the number argument name; def is its default, nil when the
// argument is required.
func (a arguments) number(name string, def *float64) (float64, error) {
	v, ok := a[name]
	if !ok {
		if def != nil {
			return *def, nil
		}
		return 0, fmt.Errorf("argument %q is required (a number)", name)
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("argument %q must be a number, got %s", name, describe(v))
	}
	f, err := n.Float64()
	if err != nil {
		return 0, fmt.Errorf("argument %q is out of range for a 64-bit float: %s", name, n)
	}
	return f, nil
}

// describe names a decoded JSON value's type for an error message.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		// Long strings are cut so an error stays one readable line.
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("the boolean %t", v)
	case json.Number:
		return "the number " + v.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func describeJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "invalid JSON"
	}
	return describe(v)
}
