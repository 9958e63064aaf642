package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Notice is something a person should know about a converted or written
// entry: a field another client does not read, a variable to set.
type Notice struct {
	Server  string
	Message string
}

func (n Notice) String() string {
	if n.Server == "" {
		return n.Message
	}
	return fmt.Sprintf("server %q: %s", n.Server, n.Message)
}

// stringFields are the members whose strings may hold variables.
var stringFields = []string{"command", "args", "env", "envFile", "cwd", "url", "serverUrl", "headers"}

// ToMcpdeck maps an entry in the client's spelling to mcpdeck's: the
// remote URL is "url". It is DocOptions.Normalize for the client's files.
func (c Client) ToMcpdeck(e Entry) Entry {
	if u, ok := e.Get("serverUrl"); ok {
		if _, has := e.Get("url"); !has {
			e = renameField(e, "serverUrl", "url", u)
		}
	}
	return e
}

func renameField(e Entry, from, to string, v json.RawMessage) Entry {
	out := e.Clone()
	i := out.index(from)
	out[i] = Field{to, v}
	return out
}

// Import converts an entry read from the client's file into mcpdeck's
// format: spellings mapped, fields mcpdeck does not read left out (with
// a notice), and a VS Code ${input:id}, which only VS Code can prompt
// for, turned into an ${env:ID} reference to set.
func (c Client) Import(name string, e Entry) (Entry, []Notice) {
	e = c.ToMcpdeck(e.Clone())
	e.Delete("name") // VS Code's --add-mcp JSON names the server inside
	var notes []Notice
	var dropped []string
	out := Entry{}
	for _, f := range e {
		if !slices.Contains(Mcpdeck.Fields, f.Name) {
			dropped = append(dropped, f.Name)
			continue
		}
		out = append(out, f)
	}
	if len(dropped) > 0 {
		notes = append(notes, Notice{name, fmt.Sprintf("left out %s: mcpdeck does not read %s", quoteList(dropped), plural(len(dropped), "it", "them"))})
	}
	out, more := rewriteVars(name, out, c, Mcpdeck)
	return out, append(notes, more...)
}

// Export converts an entry of mcpdeck's file into the client's format:
// "type" written as the client wants it, the URL under the client's name
// for it, variables in the client's syntax, and the fields the client
// does not read left out (with a notice). A remote server cannot go to a
// client whose file runs only local commands.
func (c Client) Export(name string, e Entry) (Entry, []Notice, error) {
	e = Mcpdeck.ToMcpdeck(e.Clone())
	_, hasURL := e.Get("url")
	typ, _ := e.String("type")
	remote := hasURL || (typ != "" && typ != "stdio")
	if remote && !c.Remote {
		return nil, nil, fmt.Errorf("server %q is a remote server and %s's file runs only local commands; export it with --gateway (mcpdeck gateway serves it to %s over stdio)", name, c.Name, c.Name)
	}
	var notes []Notice
	var dropped []string
	out := Entry{}
	if (remote && c.TypeRemote) || (!remote && c.TypeStdio) || (typ != "" && slices.Contains(c.Fields, "type")) {
		switch {
		case typ == "streamable-http":
			typ = "http"
		case typ == "" && remote:
			typ = "http"
		case typ == "":
			typ = "stdio"
		}
		out.Set("type", typ)
	}
	for _, f := range e {
		switch {
		case f.Name == "type":
			continue // written first, as the client wants it
		case f.Name == "url":
			f.Name = c.URLField
		case !slices.Contains(c.Fields, f.Name):
			dropped = append(dropped, f.Name)
			continue
		}
		out = append(out, f)
	}
	if len(dropped) > 0 {
		notes = append(notes, Notice{name, fmt.Sprintf("left out %s: %s does not read %s", quoteList(dropped), c.Name, plural(len(dropped), "it", "them"))})
	}
	out, more := rewriteVars(name, out, Mcpdeck, c)
	return out, append(notes, more...), nil
}

// rewriteVars rewrites the variables of every string field, written for
// client from, in the syntax of to, with a notice for each it cannot
// express.
func rewriteVars(name string, e Entry, from, to Client) (Entry, []Notice) {
	var notes []Notice
	seen := map[string]bool{}
	note := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			notes = append(notes, Notice{name, msg})
		}
	}
	conv := func(field, s string) string {
		return mapVars(s, func(v varRef) string {
			out, problem := v.in(from, to)
			if problem != "" {
				note(fmt.Sprintf("%s: %s", field, problem))
			}
			return out
		})
	}
	out := e.Clone()
	for i, f := range out {
		if !slices.Contains(stringFields, f.Name) {
			continue
		}
		var s string
		var list []string
		var obj Entry
		switch {
		case json.Unmarshal(f.Value, &s) == nil:
			out[i].Value = mustMarshal(conv(f.Name, s))
		case json.Unmarshal(f.Value, &list) == nil:
			for j := range list {
				list[j] = conv(fmt.Sprintf("%s[%d]", f.Name, j), list[j])
			}
			out[i].Value = mustMarshal(list)
		default:
			if sub, err := ParseEntry(f.Value); err == nil {
				obj = sub
				for j := range obj {
					var v string
					if json.Unmarshal(obj[j].Value, &v) == nil {
						obj[j].Value = mustMarshal(conv(f.Name+"."+obj[j].Name, v))
					}
				}
				out[i].Value = mustMarshal(obj)
			}
		}
	}
	return out, notes
}

// varRef is one ${...} reference in a value.
type varRef struct {
	raw    string // as written, "${env:TOKEN}"
	kind   string // "env" (${NAME} or ${env:NAME}), "input", or "predefined"
	name   string // TOKEN, the input id, or workspaceFolder
	def    string // the default of ${NAME:-default}
	hasDef bool
}

// predefinedVars are mcpdeck's predefined variables (config/doc.go).
var predefinedVars = []string{"workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/"}

// parseRef reads the inside of a ${...}.
func parseRef(raw, inner string) varRef {
	v := varRef{raw: raw, kind: "env", name: inner}
	switch {
	case strings.HasPrefix(inner, "env:"):
		v.name = strings.TrimPrefix(inner, "env:")
	case strings.HasPrefix(inner, "input:"):
		v.kind, v.name = "input", strings.TrimPrefix(inner, "input:")
	case slices.Contains(predefinedVars, inner):
		v.kind = "predefined"
	default:
		if n, d, ok := strings.Cut(inner, ":-"); ok {
			v.name, v.def, v.hasDef = n, d, true
		}
	}
	return v
}

// in writes the reference, written for client from, in the syntax of
// client c, or keeps it as written and says why.
func (v varRef) in(from, c Client) (string, string) {
	switch v.kind {
	case "input":
		if c.Inputs {
			return v.raw, ""
		}
		env := EnvName(v.name)
		return varRef{kind: "env", name: env}.in(from, c)
	case "predefined":
		switch {
		case c.Vars == VarsMcpdeck && from.Vars != VarsMcpdeck && strings.HasPrefix(v.name, "workspaceFolder"):
			// What VS Code and Cursor mean by it, the folder open there,
			// is in mcpdeck the project it runs in (README: "Importing").
			// Said once, where another client's entry comes in: not again
			// when the converted entry is written to mcpdeck's file, nor
			// when mcpdeck's own file is read to export it.
			return v.raw, v.raw + " is kept: mcpdeck reads it as the project it runs in (its working directory), as the client means the folder it has open"
		}
		switch c.Vars {
		case VarsMcpdeck, VarsEnvColon:
			return v.raw, ""
		}
		if v.name == "userHome" && c.Vars == VarsDollar {
			return "${HOME}", ""
		}
		return v.raw, fmt.Sprintf("%s is kept as written; %s does not expand it", v.raw, c.Name)
	}
	switch c.Vars {
	case VarsMcpdeck:
		if v.hasDef {
			return "${" + v.name + ":-" + v.def + "}", ""
		}
		return "${env:" + v.name + "}", ""
	case VarsDollar:
		if v.hasDef {
			return "${" + v.name + ":-" + v.def + "}", ""
		}
		return "${" + v.name + "}", ""
	case VarsEnvColon:
		if v.hasDef {
			return "${env:" + v.name + "}", fmt.Sprintf("%s has no defaults: ${%s:-%s} became ${env:%s}", c.Name, v.name, v.def, v.name)
		}
		return "${env:" + v.name + "}", ""
	}
	return v.raw, fmt.Sprintf("%s does not expand variables: %s is passed as written; put the value there, or export with --gateway", c.Name, v.raw)
}

// mapVars replaces every ${...} of s by f's answer; a default may itself
// hold ${...}.
func mapVars(s string, f func(varRef) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		depth, j := 0, i+2
		for ; j < len(s); j++ {
			if strings.HasPrefix(s[j:], "${") {
				depth++
				j++
				continue
			}
			if s[j] == '}' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		if j >= len(s) {
			b.WriteString(s[i:]) // unterminated: left for validation to report
			return b.String()
		}
		b.WriteString(f(parseRef(s[i:j+1], s[i+2:j])))
		s = s[j+1:]
	}
}

// EnvName turns an id or a header name into an environment variable name:
// "perplexity-key" → PERPLEXITY_KEY.
func EnvName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" || (out[0] >= '0' && out[0] <= '9') {
		out = "MCP_" + out
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
