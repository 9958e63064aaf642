package schema

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
)

// vouch reports whether doc, a schema as jsonschema.UnmarshalJSON decodes
// it, is certainly valid against its draft's meta-schema, by a check of
// its own that knows the plain part of JSON Schema tool schemas are mostly
// written in: types, properties, required, items, enums, bounds, formats,
// the combinators, local references to $defs or definitions, titles and
// descriptions. Compiling a schema it vouches for leaves out validating it
// against the meta-schema, whose compile costs about 2 ms of CPU once per
// process, which a one-shot call would otherwise pay for a schema like
// {"type":"object","properties":{"text":{"type":"string"}}}.
//
// false is no verdict: the meta-schema decides, as before. The check
// gives up on whatever it does not check itself (a $schema other than
// 2020-12's or draft-07's, $id, anchors, dynamic and recursive references,
// dependencies), and lets a keyword the draft does not know pass, as its
// meta-schema does, unless a member of its value is named like a core
// keyword. A regular expression (pattern, patternProperties' names)
// is checked as the meta-schema's "regex" format checks it, by compiling it
// with the validator's engine (Go's regexp).
// TestVouchedSchemasAreValid holds it to that: whatever it vouches for,
// the meta-schema accepts.
func vouch(doc any) bool {
	root, _ := doc.(map[string]any)
	rules := vouch2020
	if s, ok := root["$schema"]; ok {
		switch s {
		case "https://json-schema.org/draft/2020-12/schema":
		case "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema":
			rules = vouch07
		default:
			return false
		}
	}
	v := voucher{rules: rules, root: root}
	return v.schema(doc, true)
}

// A rule checks one keyword's value.
type rule func(v *voucher, val any) bool

// voucher walks one schema document.
type voucher struct {
	rules map[string]rule
	root  map[string]any
}

// giveUp is the rule of a keyword the check does not judge.
func giveUp(*voucher, any) bool { return false }

var (
	// common are the rules both drafts share.
	common = map[string]rule{
		"type":                 typeRule,
		"properties":           schemaMap,
		"definitions":          schemaMap, // 2020-12 keeps it, deprecated, as $defs
		"additionalProperties": subschema,
		"not":                  subschema,
		"if":                   subschema,
		"then":                 subschema,
		"else":                 subschema,
		"contains":             subschema,
		"propertyNames":        subschema,
		"allOf":                schemaArray,
		"anyOf":                schemaArray,
		"oneOf":                schemaArray,
		"required":             stringSet,
		"enum":                 anyArray,
		"examples":             anyArray,
		"const":                anything,
		"default":              anything,
		"title":                str,
		"description":          str,
		"$comment":             str,
		"format":               str,
		"contentMediaType":     str,
		"contentEncoding":      str,
		"readOnly":             boolean,
		"writeOnly":            boolean,
		"uniqueItems":          boolean,
		"minimum":              number,
		"maximum":              number,
		"exclusiveMinimum":     number,
		"exclusiveMaximum":     number,
		"multipleOf":           positive,
		"minLength":            count,
		"maxLength":            count,
		"minItems":             count,
		"maxItems":             count,
		"minProperties":        count,
		"maxProperties":        count,
		"$ref":                 localRef,
		"$id":                  giveUp,
		"pattern":              regex,
		"patternProperties":    regexSchemaMap,
		"dependencies":         giveUp,
	}
	vouch2020 = with(common, map[string]rule{
		"$defs":                 schemaMap,
		"items":                 subschema,
		"prefixItems":           schemaArray,
		"unevaluatedItems":      subschema,
		"unevaluatedProperties": subschema,
		"contentSchema":         subschema,
		"dependentSchemas":      schemaMap,
		"dependentRequired":     requiredMap,
		"minContains":           count,
		"maxContains":           count,
		"deprecated":            boolean,
		"$anchor":               giveUp,
		"$dynamicRef":           giveUp,
		"$dynamicAnchor":        giveUp,
		"$recursiveRef":         giveUp,
		"$recursiveAnchor":      giveUp,
		"$vocabulary":           giveUp,
	})
	vouch07 = with(common, map[string]rule{
		"items":           itemsRule07,
		"additionalItems": subschema,
	})
)

func with(base, more map[string]rule) map[string]rule {
	m := make(map[string]rule, len(base)+len(more))
	for k, r := range base {
		m[k] = r
	}
	for k, r := range more {
		m[k] = r
	}
	return m
}

// schema checks a schema: true, false, or an object whose known keywords
// pass their rules. $schema is taken only at the root, where vouch read it.
func (v *voucher) schema(s any, root bool) bool {
	switch s := s.(type) {
	case bool:
		return true
	case map[string]any:
		for k, val := range s {
			if k == "$schema" {
				if !root {
					return false
				}
				continue
			}
			r, known := v.rules[k]
			if !known {
				// The meta-schema ignores it, but the compiler may still
				// walk it (additionalItems in 2020-12) for identifiers and
				// references, which are not checked here.
				r = noDollarKeys
			}
			if !r(v, val) {
				return false
			}
		}
		return true
	}
	return false
}

// noDollarKeys is a value with no member named like a core keyword ($id,
// $ref, $anchor…) at any depth.
func noDollarKeys(v *voucher, val any) bool {
	switch val := val.(type) {
	case map[string]any:
		for k, e := range val {
			if strings.HasPrefix(k, "$") || !noDollarKeys(v, e) {
				return false
			}
		}
	case []any:
		for _, e := range val {
			if !noDollarKeys(v, e) {
				return false
			}
		}
	}
	return true
}

func subschema(v *voucher, val any) bool { return v.schema(val, false) }

func schemaMap(v *voucher, val any) bool {
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	for _, s := range m {
		if !v.schema(s, false) {
			return false
		}
	}
	return true
}

func schemaArray(v *voucher, val any) bool {
	a, ok := val.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	for _, s := range a {
		if !v.schema(s, false) {
			return false
		}
	}
	return true
}

// itemsRule07 is draft-07's items: a schema, or a non-empty array of them.
func itemsRule07(v *voucher, val any) bool {
	if _, ok := val.([]any); ok {
		return schemaArray(v, val)
	}
	return v.schema(val, false)
}

var simpleTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

// typeRule is a simple type's name, or a non-empty array of distinct ones.
func typeRule(_ *voucher, val any) bool {
	if s, ok := val.(string); ok {
		return simpleTypes[s]
	}
	a, ok := val.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	seen := map[string]bool{}
	for _, t := range a {
		s, ok := t.(string)
		if !ok || !simpleTypes[s] || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// stringSet is an array of distinct strings.
func stringSet(_ *voucher, val any) bool {
	a, ok := val.([]any)
	if !ok {
		return false
	}
	seen := make(map[string]bool, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// regex is a regular expression the validator's engine compiles.
func regex(_ *voucher, val any) bool {
	s, ok := val.(string)
	if !ok {
		return false
	}
	_, err := regexp.Compile(s)
	return err == nil
}

// regexSchemaMap is patternProperties: schemas named by regular expressions.
func regexSchemaMap(v *voucher, val any) bool {
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	for re := range m {
		if !regex(v, re) {
			return false
		}
	}
	return schemaMap(v, val)
}

func requiredMap(v *voucher, val any) bool {
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	for _, a := range m {
		if !stringSet(v, a) {
			return false
		}
	}
	return true
}

func anyArray(_ *voucher, val any) bool { _, ok := val.([]any); return ok }
func anything(*voucher, any) bool       { return true }
func str(_ *voucher, val any) bool      { _, ok := val.(string); return ok }
func boolean(_ *voucher, val any) bool  { _, ok := val.(bool); return ok }

// rat reads a JSON number as UnmarshalJSON leaves it (json.Number).
func rat(val any) (*big.Rat, bool) {
	n, ok := val.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

func number(_ *voucher, val any) bool { _, ok := rat(val); return ok }

func positive(_ *voucher, val any) bool {
	r, ok := rat(val)
	return ok && r.Sign() > 0
}

// count is a non-negative integer; 2.0 is one, as JSON Schema has it.
func count(_ *voucher, val any) bool {
	r, ok := rat(val)
	return ok && r.IsInt() && r.Sign() >= 0
}

// localRef is a reference to a member of the root's $defs (or
// definitions) named in plain characters, which the walk checks as a
// schema where it stands. Anything else (another document, a JSON
// pointer elsewhere, escapes) is the meta-schema's to judge.
func localRef(v *voucher, val any) bool {
	s, ok := val.(string)
	if !ok {
		return false
	}
	for _, kw := range []string{"$defs", "definitions"} {
		name, ok := strings.CutPrefix(s, "#/"+kw+"/")
		if !ok || !plainName(name) {
			continue
		}
		if _, checked := v.rules[kw]; !checked {
			continue // draft-07 has no $defs: its members are no schemas to it
		}
		defs, _ := v.root[kw].(map[string]any)
		_, found := defs[name]
		return found
	}
	return false
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}
