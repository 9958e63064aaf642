package config

import (
	"fmt"
	"strings"
)

// Building entries from what a person typed (mcpdeck add, the TUI's add
// form), and storing the secrets in them as that person chose.

// StdioEntry is a local server's entry in mcpdeck's format: "type" is left
// to inference, as Claude Desktop and most documentation write it.
func StdioEntry(command string, args []string, env Pairs, envFile, cwd string) Entry {
	e := Entry{}
	e.Set("command", command)
	if len(args) > 0 {
		e.Set("args", args)
	}
	if len(env) > 0 {
		e.Set("env", env)
	}
	if envFile != "" {
		e.Set("envFile", envFile)
	}
	if cwd != "" {
		e.Set("cwd", cwd)
	}
	return e
}

// RemoteEntry is a remote server's entry. An empty transport leaves "type"
// out, so mcpdeck tries Streamable HTTP and falls back to SSE.
func RemoteEntry(transport Transport, url string, headers Pairs) Entry {
	e := Entry{}
	if transport != "" {
		e.Set("type", string(transport))
	}
	e.Set("url", url)
	if len(headers) > 0 {
		e.Set("headers", headers)
	}
	return e
}

// SecretStorage is how a secret given on the command line is written.
type SecretStorage string

// The storages. SecretAsEnv is the default: nothing secret lands in the
// file, and the person sets the variable named.
const (
	SecretAsEnv   SecretStorage = "env"   // an ${env:NAME} reference
	SecretAsInput SecretStorage = "input" // a VS Code ${input:id} prompt
	SecretAsValue SecretStorage = "value" // the value itself, with a warning
)

// ParseSecretStorage reads --secret-as.
func ParseSecretStorage(s string) (SecretStorage, error) {
	switch st := SecretStorage(s); st {
	case "", SecretAsEnv:
		return SecretAsEnv, nil
	case SecretAsInput, SecretAsValue:
		return st, nil
	}
	return "", fmt.Errorf("--secret-as %q: use env (an ${env:NAME} reference), input (a VS Code prompt) or value (written as given)", s)
}

// Secret is one value of an entry that is a secret by mcpdeck's rules (a
// credential's name or shape; see Server.Secrets), as written.
type Secret struct {
	Field string // "env" or "headers"
	Name  string // the variable or header
	Value string
	// Env is the environment variable an ${env:…} reference would use.
	Env string
}

// Secrets lists the secrets written in plain text in e's env and headers:
// values whose name or shape says credential (SecretName, SecretValue);
// values that already refer to a variable are not. Of a header such as
// "Authorization: Bearer abc" the secret is what follows the scheme.
func (e Entry) Secrets(server string) []Secret {
	var out []Secret
	for _, field := range []string{"env", "headers"} {
		m, _ := e.Map(field)
		for _, kv := range m {
			val := kv.Value
			if field == "headers" {
				_, val = splitScheme(val)
			}
			if val == "" || strings.Contains(val, "${") {
				continue
			}
			if SecretName(kv.Name) || SecretValue(val) {
				out = append(out, Secret{Field: field, Name: kv.Name, Value: val, Env: secretEnv(server, field, kv.Name)})
			}
		}
	}
	return out
}

// secretEnv names the variable for a secret: an env entry's own name, a
// header's name prefixed with the server's (SENTRY_AUTHORIZATION).
func secretEnv(server, field, name string) string {
	if field == "env" {
		return EnvName(name)
	}
	return EnvName(server + "_" + name)
}

// splitScheme splits "Bearer abc" into "Bearer " and "abc": the scheme of
// an Authorization header is no secret and stays readable.
func splitScheme(v string) (string, string) {
	scheme, cred, ok := strings.Cut(v, " ")
	if ok && cred != "" && !strings.ContainsAny(scheme, "=:") && len(scheme) <= 12 {
		return scheme + " ", cred
	}
	return "", v
}

// StoreSecrets writes the secrets of e as chosen and returns the entry,
// the VS Code inputs to declare (SecretAsInput) and what the person must
// know: which variables to set, or that a value is stored in plain text.
// target is the client whose file is written (its variable syntax).
func StoreSecrets(server string, e Entry, how SecretStorage, target Client) (Entry, []Input, []Notice, error) {
	secrets := e.Secrets(server)
	if len(secrets) == 0 {
		return e, nil, nil, nil
	}
	out := e.Clone()
	var inputs []Input
	var notes []Notice
	for _, s := range secrets {
		ref, in, note, err := SecretRef(server, s.Field+"."+s.Name, s.Env, s.Value, how, target)
		if err != nil {
			return nil, nil, nil, err
		}
		if in != nil {
			inputs = append(inputs, *in)
		}
		notes = append(notes, note...)
		m, _ := out.Map(s.Field)
		cur, _ := m.Get(s.Name)
		scheme := ""
		if s.Field == "headers" {
			scheme, _ = splitScheme(cur)
		}
		m.Set(s.Name, scheme+ref)
		out.Set(s.Field, m)
	}
	return out, inputs, notes, nil
}

// SecretRef is how one secret (what: "env.GITHUB_TOKEN") is written under
// how: the reference that stands for it (or the value itself), the VS Code
// input to declare, and what the person must know. env is the variable an
// ${env:…} reference uses. A client that expands no variables (Claude
// Desktop) can take the value only.
func SecretRef(server, what, env, value string, how SecretStorage, target Client) (string, *Input, []Notice, error) {
	switch {
	case how == SecretAsValue:
		return value, nil, []Notice{{server, fmt.Sprintf("%s is a secret stored in plain text in the file; anyone who can read the file can use it", what)}}, nil
	case target.Vars == VarsNone:
		return "", nil, nil, fmt.Errorf("server %q: %s expands no variables, so the secret %s cannot be a reference there: store its value (--secret-as value; in plain text), or point %s at mcpdeck's gateway (export --to %s --gateway), which keeps the secret in mcpdeck's own file", server, target.Name, what, target.Name, target.ID)
	case how == SecretAsInput:
		id := strings.ToLower(strings.ReplaceAll(env, "_", "-"))
		in := &Input{ID: id, Type: "promptString", Description: fmt.Sprintf("%s of %s", what, server), Password: true}
		var notes []Notice
		if !target.Inputs {
			notes = append(notes, Notice{server, fmt.Sprintf("%s asks VS Code for ${input:%s}; %s cannot prompt for it, so the server will not start there", what, id, target.Name)})
		}
		return "${input:" + id + "}", in, notes, nil
	}
	ref, _ := varRef{kind: "env", name: env}.in(Mcpdeck, target)
	return ref, nil, []Notice{{server, fmt.Sprintf("%s is written as %s, not as typed: the server reads it from %s", what, ref, env)}}, nil
}

// GatewayTarget is how a client reaches mcpdeck's gateway (mcpdeck
// gateway), for export --gateway.
type GatewayTarget struct {
	// Command is mcpdeck's executable; Config the --config files the
	// gateway reads (its own, so it does not read the client's project
	// file, which lists the gateway itself).
	Command string
	Config  []string
	// URL, when set, is the HTTP gateway's endpoint instead of stdio;
	// TokenEnv the variable holding its bearer token.
	URL      string
	TokenEnv string
}

// GatewayEntry is the one entry that points client c at mcpdeck's gateway,
// and the VS Code inputs it needs. Over HTTP the token is a reference the
// client expands (VS Code asks for it once, as an input), never the
// token itself.
func (c Client) GatewayEntry(g GatewayTarget) (Entry, []Input, error) {
	e := Entry{}
	if g.URL == "" {
		if c.TypeStdio {
			e.Set("type", "stdio")
		}
		e.Set("command", g.Command)
		var args []string
		for _, f := range g.Config {
			args = append(args, "--config", f)
		}
		e.Set("args", append(args, "gateway"))
		return e, nil, nil
	}
	if !c.Remote {
		return nil, nil, fmt.Errorf("%s's file runs only local commands; export the gateway over stdio (leave out --http)", c.Name)
	}
	if c.TypeRemote {
		e.Set("type", "http")
	}
	e.Set(c.URLField, g.URL)
	var inputs []Input
	var ref string
	if c.Inputs {
		inputs = []Input{{ID: "mcpdeck-token", Type: "promptString", Description: "mcpdeck gateway token", Password: true}}
		ref = "${input:mcpdeck-token}"
	} else {
		ref, _ = varRef{kind: "env", name: g.TokenEnv}.in(Mcpdeck, c)
	}
	e.Set("headers", Pairs{{"Authorization", "Bearer " + ref}})
	return e, inputs, nil
}
