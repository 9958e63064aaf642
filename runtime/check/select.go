package check

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"mcpdeck/runtime"
)

// The patterns below are compiled on first use, not in package init,
// which every mcpdeck command (version, a one-shot call) paid for.

// slowWords mark a tool that takes its time: the one to cancel mid-flight
// and to keep outstanding while the transport is dropped.
var slowWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`sleep|slow|long|wait|delay`) })

// riskyWords mark tools the call step does not pick by itself: tools that
// fail, crash or flood on purpose, or take their time.
var riskyWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`crash|exit|kill|shutdown|abort|panic|fail|error|flood|sleep|slow|long|wait|delay|elicit|sampling`)
})

// durationParam matches a numeric property that says how long to take.
var durationParam = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)seconds|secs|duration|delay|millis|ms$|^ms|time|wait|sleep`)
})

// annotations are the tool hints the checker respects.
type annotations struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
}

func hints(t runtime.Tool) annotations {
	var a annotations
	_ = json.Unmarshal(t.Annotations, &a)
	return a
}

// destructive reports a tool that says it may destroy something: the
// checker never sends it made-up arguments.
func destructive(t runtime.Tool) bool {
	a := hints(t)
	return a.Destructive != nil && *a.Destructive && (a.ReadOnly == nil || !*a.ReadOnly)
}

// candidate is a tool with arguments the checker can send it.
type candidate struct {
	tool runtime.Tool
	args json.RawMessage
}

// cheapWords mark tools that answer at once with a small result, the best
// proof that a call round-trips.
var cheapWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`echo|ping`) })

// preference ranks a tool for the call step: echo-like tools first, then
// read-only ones; the runtime lists tools by name, so order alone says
// nothing.
func preference(t runtime.Tool) int {
	p := 0
	if cheapWords().MatchString(strings.ToLower(t.ServerTool)) {
		p += 2
	}
	if readOnly(t) {
		p++
	}
	return p
}

// callCandidates are the tools the call step may pick, best first (see
// preference), skipping the risky and
// destructive ones and those whose schema it cannot satisfy. why says
// what was left out when there is no candidate.
func callCandidates(tools []runtime.Tool) (out []candidate, why string) {
	var unsatisfiable []string
	for _, t := range tools {
		// A tool the operator switched off is refused before it reaches
		// the server, and they had a reason; an app-only tool is no
		// model's to call, and the call step is a model's flow.
		if t.Disabled || destructive(t) || riskyWords().MatchString(strings.ToLower(t.ServerTool)) || appOnly(t) {
			continue
		}
		args, reason, ok := MinimalArguments(t.InputSchema)
		if !ok {
			unsatisfiable = append(unsatisfiable, t.ServerTool+": "+reason)
			continue
		}
		out = append(out, candidate{tool: t, args: args})
	}
	sort.SliceStable(out, func(i, j int) bool { return preference(out[i].tool) > preference(out[j].tool) })
	switch {
	case len(out) > 0:
	case len(tools) == 0:
		why = "the server lists no tools"
	case len(unsatisfiable) > 0:
		why = "no tool has arguments the checker can generate (" + strings.Join(unsatisfiable, "; ") + "); name one with --tool and --args"
	default:
		why = "every tool is switched off, or looks destructive or deliberately failing; name one to call with --tool and --args"
	}
	return out, why
}

func readOnly(t runtime.Tool) bool {
	a := hints(t)
	return a.ReadOnly != nil && *a.ReadOnly
}

// slowTool finds a tool that takes its time and arguments that make it
// take long: a name (then a description) with a slow word, a satisfiable
// schema, and a duration-like number set high.
func slowTool(tools []runtime.Tool) (candidate, bool) {
	for _, byName := range []bool{true, false} {
		for _, t := range tools {
			text := strings.ToLower(t.ServerTool)
			if !byName {
				text = strings.ToLower(t.Description)
			}
			if t.Disabled || destructive(t) || !slowWords().MatchString(text) {
				continue
			}
			args, _, ok := MinimalArguments(t.InputSchema)
			if !ok {
				continue
			}
			if long, ok := lengthen(t.InputSchema, args); ok {
				return candidate{tool: t, args: long}, true
			}
			if byName {
				return candidate{tool: t, args: args}, true
			}
		}
	}
	return candidate{}, false
}

// lengthen sets every duration-like numeric property to 30 seconds (30000
// for milliseconds), within its bounds, and keeps the change only if the
// schema still accepts it.
func lengthen(raw, args json.RawMessage) (json.RawMessage, bool) {
	root, _ := rootObject(raw)
	if root == nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, false
	}
	changed := false
	for _, p := range root.Properties {
		if !durationParam().MatchString(p.Name) || p.Type != "number" && p.Type != "integer" {
			continue
		}
		v := 30.0
		lower := strings.ToLower(p.Name)
		if strings.Contains(lower, "ms") || strings.Contains(lower, "milli") {
			v = 30000
		}
		if p.Maximum != nil && v > *p.Maximum {
			v = *p.Maximum
		}
		if p.Type == "integer" {
			v = math.Floor(v)
		}
		m[p.Name] = v
		changed = true
	}
	if !changed {
		return nil, false
	}
	long, _, ok := validated(raw, m)
	return long, ok
}

// invalidCandidate finds a tool and arguments that break its schema,
// preferring the tool the call step used.
func invalidCandidate(tools []runtime.Tool, prefer string) (t runtime.Tool, args json.RawMessage, how string, ok bool) {
	ordered := make([]runtime.Tool, 0, len(tools))
	for _, t := range tools {
		if t.ServerTool == prefer {
			ordered = append([]runtime.Tool{t}, ordered...)
		} else {
			ordered = append(ordered, t)
		}
	}
	for _, t := range ordered {
		if t.Disabled || destructive(t) || (t.ServerTool != prefer && riskyWords().MatchString(strings.ToLower(t.ServerTool))) {
			continue
		}
		if args, how, ok := InvalidArguments(t.InputSchema); ok {
			return t, args, how, true
		}
	}
	return runtime.Tool{}, nil, "", false
}
