package registry

import (
	"cmp"
	"regexp"
	"strings"
	"sync"

	"mcpdeck/config"
)

// Filling what a server declares: its environment variables, headers,
// arguments and the {variables} inside their values (see Install).

// env fills a package's environment variables.
func (r *resolver) env(vars []KeyValueInput) config.Pairs {
	out := config.Pairs{}
	for _, kv := range vars {
		if v, ok := r.keyValue(kv, "env"); ok {
			out = append(out, config.Pair{Name: kv.Name, Value: v})
		}
	}
	return out
}

// keyValue fills an environment variable or a header.
func (r *resolver) keyValue(kv KeyValueInput, kind string) (string, bool) {
	if kv.Value != "" {
		v, _ := r.substitute(kv.Value, kv.Variables, false)
		return v, true
	}
	ref := kv.Name
	if kind == "header" {
		ref = r.o.Name + "_" + kv.Name
	}
	return r.fill(Need{Key: kv.Name, Kind: kind, Input: kv.Input}, ref)
}

// args fills a list of arguments.
func (r *resolver) args(list []Argument) []string {
	var out []string
	for _, a := range list {
		switch a.Type {
		case "named":
			flag := a.Name
			if flag == "" {
				r.note("an argument without a name was left out")
				continue
			}
			if !strings.HasPrefix(flag, "-") {
				flag = "--" + flag
			}
			key := strings.TrimLeft(flag, "-")
			var v string
			var ok bool
			if a.Value != "" {
				v, _ = r.substitute(a.Value, a.Variables, false)
				ok = true
			} else {
				v, ok = r.fill(Need{Key: key, Kind: "argument", Input: a.Input}, r.o.Name+"_"+key)
			}
			switch {
			case !ok:
			case a.Format == "boolean":
				if v == "true" {
					out = append(out, flag)
				}
			default:
				out = append(out, flag, v)
			}
		default:
			if a.Value != "" {
				v, _ := r.substitute(a.Value, a.Variables, false)
				out = append(out, v)
				continue
			}
			key := cmp.Or(a.ValueHint, "argument")
			if v, ok := r.fill(Need{Key: key, Kind: "argument", Input: a.Input}, r.o.Name+"_"+key); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

var braces = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z0-9_.-]+)\}`) })

// substitute fills the {variables} of a value. An identifier without a
// declaration stays as written, as the schema says, unless strict (a URL,
// where it must be filled), when it is looked up in Values and returned
// as missing otherwise.
func (r *resolver) substitute(value string, vars map[string]Input, strict bool) (string, []string) {
	var missing []string
	out := braces().ReplaceAllStringFunc(value, func(m string) string {
		name := m[1 : len(m)-1]
		in, declared := vars[name]
		if !declared {
			if v, ok := r.o.Values[name]; ok {
				return v
			}
			if strict {
				missing = append(missing, name)
			}
			return m
		}
		if v, ok := r.fill(Need{Key: name, Kind: "variable", Input: in}, r.o.Name+"_"+name); ok {
			return v
		}
		if strict {
			missing = append(missing, name)
		}
		return m
	})
	return out, missing
}

// fill finds the value of one need (see Options) and records how.
// refName is the environment variable a reference uses.
func (r *resolver) fill(n Need, refName string) (string, bool) {
	secret := n.IsSecret
	record := func(how, v string, ok bool) (string, bool) {
		n.How = how
		r.needs = append(r.needs, n)
		return v, ok
	}
	if v, ok := r.o.Values[n.Key]; ok {
		if secret {
			return record("given", r.storeSecret(n, refName, v), true)
		}
		return record("given", v, true)
	}
	askable := n.IsRequired && n.Default == "" && (!secret || r.o.Secrets == config.SecretAsValue)
	if r.o.Ask != nil && askable {
		if v, ok := r.o.Ask(n); ok {
			if secret {
				return record("asked", r.storeSecret(n, refName, v), true)
			}
			return record("asked", v, true)
		}
	}
	if n.Default != "" && !secret {
		return record("default", n.Default, true)
	}
	if secret || n.IsRequired {
		return record("reference", r.reference(n, refName), true)
	}
	return record("left out", "", false)
}

// storeSecret writes a secret value as Options.Secrets says.
func (r *resolver) storeSecret(n Need, refName, v string) string {
	if r.o.Secrets == config.SecretAsValue {
		r.note("%s %s is a secret stored in plain text in the file; anyone who can read the file can use it", n.Kind, n.Key)
		return v
	}
	return r.reference(n, refName)
}

// reference is the reference that stands for a value to set later, and
// the notice that says so.
func (r *resolver) reference(n Need, refName string) string {
	what := n.Kind + " " + n.Key
	if n.Description != "" {
		what += " (" + n.Description + ")"
	}
	if r.o.Secrets == config.SecretAsInput {
		id := strings.ToLower(strings.ReplaceAll(config.EnvName(refName), "_", "-"))
		r.out.Inputs = append(r.out.Inputs, config.Input{ID: id, Type: "promptString", Description: cmp.Or(n.Description, n.Key), Password: n.IsSecret})
		r.note("%s is asked by VS Code as ${input:%s}", what, id)
		return "${input:" + id + "}"
	}
	env := config.EnvName(refName)
	r.note("%s is ${env:%s}: set %s before the server starts", what, env, env)
	return "${env:" + env + "}"
}
