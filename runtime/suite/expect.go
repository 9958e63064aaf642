package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"mcpdeck/runtime"
)

// checkPaths applies equals, matches, exists and absent to doc. Values
// in equals may hold variables, resolved by sc.
func checkPaths(sc *scope, doc any, equals, matches []PathValue, exists, absent []PathRef) []Failure {
	var out []Failure
	for _, pv := range equals {
		want, err := sc.expand(pv.Value)
		if err != nil {
			out = append(out, Failure{Expectation: "equals", Path: pv.Path, Message: err.Error(), Pos: pv.Pos.String()})
			continue
		}
		got, found, err := selectAt(pv.Path, doc)
		switch {
		case err != nil:
			out = append(out, Failure{Expectation: "equals", Path: pv.Path, Message: err.Error(), Pos: pv.Pos.String()})
		case !found && !isEmptyList(want):
			out = append(out, Failure{Expectation: "equals", Path: pv.Path, Message: "selects nothing in the result", Expected: compact(want), Pos: pv.Pos.String()})
		case !equalJSON(got, want):
			f := Failure{Expectation: "equals", Path: pv.Path, Message: "differs", Expected: compact(want), Actual: compact(got), Pos: pv.Pos.String()}
			if isComposite(got) || isComposite(want) {
				f.Diff = Diff("expected", "actual", want, got)
			}
			out = append(out, f)
		}
	}
	for _, pv := range matches {
		pattern := pv.Value.(string)
		re, err := regexp.Compile(pattern)
		if err != nil { // checked when parsed
			continue
		}
		got, found, err := selectAt(pv.Path, doc)
		switch {
		case err != nil:
			out = append(out, Failure{Expectation: "matches", Path: pv.Path, Message: err.Error(), Pos: pv.Pos.String()})
		case !found:
			out = append(out, Failure{Expectation: "matches", Path: pv.Path, Message: "selects nothing in the result", Expected: "/" + pattern + "/", Pos: pv.Pos.String()})
		default:
			text, ok := got.(string)
			if !ok {
				text = compact(got)
			}
			if !re.MatchString(text) {
				out = append(out, Failure{Expectation: "matches", Path: pv.Path, Message: "does not match", Expected: "/" + pattern + "/", Actual: compact(got), Pos: pv.Pos.String()})
			}
		}
	}
	for _, p := range exists {
		if _, found, err := selectAt(p.Path, doc); err != nil || !found {
			out = append(out, Failure{Expectation: "exists", Path: p.Path, Message: "selects nothing in the result", Pos: p.Pos.String()})
		}
	}
	for _, p := range absent {
		if got, found, err := selectAt(p.Path, doc); err == nil && found {
			out = append(out, Failure{Expectation: "absent", Path: p.Path, Message: "is present", Actual: compact(got), Pos: p.Pos.String()})
		}
	}
	return out
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}

func isComposite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// checkSchema validates instance against schema with the runtime's
// validator (JSON Schema 2020-12 unless $schema says otherwise).
func checkSchema(schema, instance any, what string) []Failure {
	sb, err := json.Marshal(schema)
	if err != nil {
		return []Failure{{Expectation: "schema", Message: err.Error()}}
	}
	ib, _ := json.Marshal(instance)
	if instance == nil {
		ib = []byte("null")
	}
	fields, err := runtime.ValidateArguments(sb, ib)
	if err != nil {
		return []Failure{{Expectation: "schema", Message: "the schema does not compile: " + err.Error()}}
	}
	if len(fields) == 0 {
		return nil
	}
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.String()
	}
	return []Failure{{Expectation: "schema", Message: what + " does not match the schema: " + strings.Join(msgs, "; "), Actual: compact(instance)}}
}

// checkNotifications counts the notifications of each expectation among
// notes; progress counts only the step's own (mine).
func checkNotifications(sc *scope, want []NotificationExpect, notes []note, mine func(note) bool) []Failure {
	var out []Failure
	for _, ne := range want {
		n := countMatching(sc, ne, notes, mine)
		switch {
		case n < ne.Min:
			out = append(out, Failure{Expectation: "notifications", Message: fmt.Sprintf("%s: expected at least %d, got %d", ne.Method, ne.Min, n),
				Actual: summarize(notes), Pos: ne.Pos.String()})
		case ne.Max != nil && n > *ne.Max:
			out = append(out, Failure{Expectation: "notifications", Message: fmt.Sprintf("%s: expected at most %d, got %d", ne.Method, *ne.Max, n),
				Actual: summarize(notes), Pos: ne.Pos.String()})
		}
	}
	return out
}

// met reports whether every minimum of want is reached.
func met(sc *scope, want []NotificationExpect, notes []note, mine func(note) bool) bool {
	for _, ne := range want {
		if countMatching(sc, ne, notes, mine) < ne.Min {
			return false
		}
	}
	return true
}

func countMatching(sc *scope, ne NotificationExpect, notes []note, mine func(note) bool) int {
	n := 0
	for _, x := range notes {
		if x.method != ne.Method {
			continue
		}
		if x.method == "notifications/progress" && (mine == nil || !mine(x)) {
			continue
		}
		if len(checkPaths(sc, x.doc, ne.Equals, ne.Matches, nil, nil)) == 0 {
			n++
		}
	}
	return n
}

// summarize lists the methods of notes, for a failure message.
func summarize(notes []note) string {
	if len(notes) == 0 {
		return "no notifications"
	}
	counts := map[string]int{}
	var order []string
	for _, n := range notes {
		if counts[n.method] == 0 {
			order = append(order, n.method)
		}
		counts[n.method]++
	}
	parts := make([]string, len(order))
	for i, m := range order {
		parts[i] = fmt.Sprintf("%s ×%d", m, counts[m])
	}
	return strings.Join(parts, ", ")
}
