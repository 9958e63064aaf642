package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
)

// NewStep is a step to write into a suite: a request made by hand (the
// TUI's T) or found in a recording, with what came back as its
// expectation.
type NewStep struct {
	ID       string // made unique when written
	Kind     Kind
	Target   string
	Args     any // a JSON object, or nil
	Complete *CompleteSpec
	// IsError is written for a call result with isError: true.
	IsError bool
	// Error, when set, expects that JSON-RPC error (code; the message
	// exactly, as a regular expression).
	Error *RecordedError
	// Snapshot, when not nil, is the result document: the step expects a
	// snapshot, and this becomes it.
	Snapshot any
	// Equals are fields of the result the step expects as they were.
	Equals []PathValue
}

// RecordedError is a JSON-RPC error a request got.
type RecordedError struct {
	Code    int64
	Message string
}

// render writes the step as YAML: a MapSlice in the format's key order.
func (n *NewStep) render() yaml.MapSlice {
	m := yaml.MapSlice{{Key: "id", Value: n.ID}}
	if n.Kind == KindComplete {
		c := yaml.MapSlice{}
		if n.Complete.Prompt != "" {
			c = append(c, yaml.MapItem{Key: "prompt", Value: n.Complete.Prompt})
		} else {
			c = append(c, yaml.MapItem{Key: "template", Value: n.Complete.Template})
		}
		c = append(c, yaml.MapItem{Key: "argument", Value: n.Complete.Argument}, yaml.MapItem{Key: "value", Value: n.Complete.Value})
		if len(n.Complete.Context) > 0 {
			c = append(c, yaml.MapItem{Key: "context", Value: n.Complete.Context})
		}
		m = append(m, yaml.MapItem{Key: string(n.Kind), Value: c})
	} else {
		m = append(m, yaml.MapItem{Key: string(n.Kind), Value: n.Target})
	}
	if n.Args != nil {
		m = append(m, yaml.MapItem{Key: "args", Value: yamlValue(n.Args)})
	}
	var e yaml.MapSlice
	if n.IsError {
		e = append(e, yaml.MapItem{Key: "isError", Value: true})
	}
	if n.Error != nil {
		e = append(e, yaml.MapItem{Key: "error", Value: yaml.MapSlice{{Key: "code", Value: n.Error.Code},
			{Key: "message", Value: "^" + regexpQuote(n.Error.Message) + "$"}}})
	}
	if len(n.Equals) > 0 {
		eq := yaml.MapSlice{}
		for _, pv := range n.Equals {
			eq = append(eq, yaml.MapItem{Key: pv.Path, Value: yamlValue(pv.Value)})
		}
		e = append(e, yaml.MapItem{Key: "equals", Value: eq})
	}
	if n.Snapshot != nil {
		e = append(e, yaml.MapItem{Key: "snapshot", Value: true})
	}
	if len(e) > 0 {
		m = append(m, yaml.MapItem{Key: "expect", Value: e})
	}
	return m
}

// regexpQuote escapes s for a regular expression, as regexp.QuoteMeta
// does, leaving the result readable in YAML.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// yamlValue writes whole numbers as integers (JSON decodes every number
// as a float, which YAML would print as 1.0).
func yamlValue(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case map[string]any:
		out := yaml.MapSlice{}
		for _, k := range sortedKeys(x) {
			out = append(out, yaml.MapItem{Key: k, Value: yamlValue(x[k])})
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = yamlValue(e)
		}
		return out
	}
	return v
}

func marshalSteps(steps []NewStep) ([]byte, error) {
	items := make([]any, len(steps))
	for i := range steps {
		items[i] = steps[i].render()
	}
	return yaml.MarshalWithOptions(items, yaml.IndentSequence(true), yaml.UseLiteralStyleIfMultiline(true))
}

// uniqueIDs gives each new step an id no other step has: its own, or
// with -2, -3, ... appended.
func uniqueIDs(taken map[string]bool, steps []NewStep) {
	for i := range steps {
		base := steps[i].ID
		if base == "" || !stepID().MatchString(base) {
			base = sanitizeID(base)
		}
		id := base
		for n := 2; taken[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		taken[id] = true
		steps[i].ID = id
	}
}

// sanitizeID makes an id out of a tool name or URI.
func sanitizeID(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "step"
	}
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	return out
}

// NewSuite writes a new suite's text: a comment, the configured server,
// the steps.
func NewSuite(server, comment string, steps []NewStep) ([]byte, error) {
	return NewSuiteFor(ServerRef{Name: server}, comment, steps)
}

// NewSuiteFor is NewSuite for a server named or inline.
func NewSuiteFor(server ServerRef, comment string, steps []NewStep) ([]byte, error) {
	uniqueIDs(map[string]bool{}, steps)
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(comment), "\n") {
		if line != "" {
			fmt.Fprintf(&b, "# %s\n", line)
		}
	}
	var value any = server.Name
	if in := server.Inline; in != nil {
		var m yaml.MapSlice
		for _, kv := range []yaml.MapItem{{Key: "command", Value: in.Command}, {Key: "args", Value: in.Args}, {Key: "url", Value: in.URL}, {Key: "transport", Value: in.Transport}} {
			if kv.Value != "" && kv.Value != nil && !(kv.Key == "args" && len(in.Args) == 0) {
				m = append(m, kv)
			}
		}
		value = m
	}
	head, err := yaml.Marshal(yaml.MapSlice{{Key: "server", Value: value}})
	if err != nil {
		return nil, err
	}
	b.Write(head)
	b.WriteString("steps:\n")
	items, err := marshalSteps(steps)
	if err != nil {
		return nil, err
	}
	b.Write(items)
	return b.Bytes(), nil
}

// AppendSteps adds steps to the suite at path (a new file for the server
// when there is none) and stores their snapshots. The existing text,
// comments included, is kept as it is: the steps are inserted at the end
// of its steps: list. Nothing is written unless the result parses.
// It returns the ids the steps were given.
func AppendSteps(path, server string, steps []NewStep) ([]string, error) {
	return AppendStepsFor(path, ServerRef{Name: server}, steps)
}

// AppendStepsFor is AppendSteps for a server named or inline (ServerFor):
// an existing suite must test the same server.
func AppendStepsFor(path string, server ServerRef, steps []NewStep) ([]string, error) {
	data, err := os.ReadFile(path)
	var text []byte
	switch {
	case errors.Is(err, fs.ErrNotExist):
		text, err = NewSuiteFor(server, "mcpdeck test suite for "+server.String()+" (see runtime/suite/FORMAT.md);\nsteps appended with the T key of mcpdeck's call history.", steps)
		if err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, err)
	default:
		if text, err = insertSteps(path, data, server, steps); err != nil {
			return nil, err
		}
	}
	s, err := Parse(path, text)
	if err != nil {
		return nil, fmt.Errorf("the suite would not parse after adding the steps (nothing was written): %w", err)
	}
	snaps := OpenSnapshots(s)
	var ids []string
	for i := range steps {
		ids = append(ids, steps[i].ID)
		if steps[i].Snapshot != nil {
			if err := snaps.put(steps[i].ID, steps[i].Snapshot); err != nil {
				return nil, err
			}
		}
	}
	if err := writeAtomic(path, text); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := snaps.Save(false); err != nil {
		return nil, err
	}
	return ids, nil
}

// insertSteps puts steps at the end of the steps: list of an existing
// suite's text.
func insertSteps(path string, data []byte, server ServerRef, steps []NewStep) ([]byte, error) {
	s, err := Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("cannot add to a suite with problems: %w", err)
	}
	if (s.Server.Inline == nil) != (server.Inline == nil) || s.Server.String() != server.String() {
		return nil, fmt.Errorf("%s tests server %s, not %s: choose another file", path, s.Server, server)
	}
	taken := map[string]bool{}
	for i := range s.Steps {
		taken[s.Steps[i].Key()] = true
	}
	uniqueIDs(taken, steps)
	f, err := yamlparser.ParseBytes(data, 0)
	if err != nil || len(f.Docs) == 0 {
		return nil, fmt.Errorf("reading %s: %v", path, err)
	}
	top, ok := unwrap(f.Docs[0].Body).(*ast.MappingNode)
	if !ok {
		return nil, fmt.Errorf("%s: the suite is not a block mapping; add the steps by hand", path)
	}
	var seq *ast.SequenceNode
	next := -1 // the line of the top-level key after steps:
	var keyLines []int
	for _, mv := range top.Values {
		keyLines = append(keyLines, mv.Key.GetToken().Position.Line)
	}
	for i, mv := range top.Values {
		if keyText(mv.Key) != "steps" {
			continue
		}
		seq, _ = unwrap(mv.Value).(*ast.SequenceNode)
		if i+1 < len(top.Values) {
			next = keyLines[i+1]
		}
	}
	if seq == nil || seq.IsFlowStyle {
		return nil, fmt.Errorf("%s: steps: is not a block list (- item per line); add the steps by hand", path)
	}
	indent := seq.Start.Position.Column - 1
	items, err := marshalSteps(steps)
	if err != nil {
		return nil, err
	}
	// marshalSteps indents the list by 2; match the file's own indent.
	lines := strings.Split(strings.TrimRight(string(items), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Repeat(" ", indent) + strings.TrimPrefix(l, "  ")
	}
	block := strings.Join(lines, "\n") + "\n"

	at := len(data)
	if next > 0 {
		at = lineStart(data, next)
		// Keep the blank lines and comments that lead into the next key
		// with it.
		for at > 0 {
			prev := lineStart(data, lineOf(data, at-1))
			l := strings.TrimSpace(string(data[prev:at]))
			if l != "" && !strings.HasPrefix(l, "#") {
				break
			}
			at = prev
		}
	}
	var out bytes.Buffer
	out.Write(data[:at])
	if at > 0 && data[at-1] != '\n' {
		out.WriteByte('\n')
	}
	out.WriteString(block)
	out.Write(data[at:])
	return out.Bytes(), nil
}

// lineStart is the offset where 1-based line n begins.
func lineStart(data []byte, n int) int {
	off := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// lineOf is the 1-based line holding offset off.
func lineOf(data []byte, off int) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Fields lists the leaves of a result document (strings, numbers,
// booleans, nulls, and empty objects and lists) with their paths, in
// document order, at most limit of them: what a person may choose to
// expect instead of a whole snapshot.
func Fields(doc any, limit int) []PathValue {
	var out []PathValue
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if len(out) >= limit {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				out = append(out, PathValue{Path: path, Value: x})
			}
			for _, k := range sortedKeys(x) {
				walk(path+member(k), x[k])
			}
		case []any:
			if len(x) == 0 {
				out = append(out, PathValue{Path: path, Value: x})
			}
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			out = append(out, PathValue{Path: path, Value: x})
		}
	}
	walk("$", doc)
	return out
}

var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// member is a JSONPath member selector: .name, or ['name'] for names
// that are not identifiers.
func member(name string) string {
	if identifier().MatchString(name) {
		return "." + name
	}
	return "['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "']"
}
