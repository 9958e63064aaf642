package mixin

import "encoding/json"

// unquote reads the JSON string a jsonnet snippet evaluates to.
func unquote(s string, out *string) error { return json.Unmarshal([]byte(s), out) }
