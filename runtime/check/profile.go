package check

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"mcpdeck/runtime"
)

// Profile is what one MCP client accepts of a server (profiles.go holds
// the table).
type Profile struct {
	Name   string  // as --profile takes it: claude-code
	Client string  // as people call it: Claude Code
	Limits []Limit // each with its source
}

// Rule is the kind of a limit.
type Rule string

// The rules a limit can state.
const (
	// RuleToolNameChars: each tool name matches Pattern.
	RuleToolNameChars Rule = "tool-name-chars"
	// RuleToolNameLength: each tool name has at most Max characters.
	RuleToolNameLength Rule = "tool-name-length"
	// RuleQualifiedNameLength: the name the client gives the tool, Format
	// filled with the server's and the tool's names, has at most Max.
	RuleQualifiedNameLength Rule = "qualified-name-length"
	// RuleSchemaKeywords: no input schema uses one of Keywords.
	RuleSchemaKeywords Rule = "schema-keywords"
	// RuleDescriptionLength: each tool description has at most Max characters.
	RuleDescriptionLength Rule = "description-length"
	// RuleInstructionsLength: the server's instructions have at most Max characters.
	RuleInstructionsLength Rule = "instructions-length"
	// RuleToolCount: the server lists at most Max tools.
	RuleToolCount Rule = "tool-count"
)

// Rules are every rule, in the order a grid shows them.
var Rules = []Rule{RuleToolNameChars, RuleToolNameLength, RuleQualifiedNameLength, RuleSchemaKeywords,
	RuleDescriptionLength, RuleInstructionsLength, RuleToolCount}

// Limit is one thing a client accepts, with what it does past it and where
// that is written.
type Limit struct {
	Rule     Rule
	Max      int      // the length or count limits
	Pattern  string   // RuleToolNameChars
	Format   string   // RuleQualifiedNameLength: {server} and {tool} filled in
	Keywords []string // RuleSchemaKeywords
	// Status is what breaking the limit is: Fail when the client refuses
	// or breaks, Warn when it renames, cuts or leaves something out.
	Status Status
	Effect string // what the client does past the limit
	Source string // where it is written (a URL, pinned to a commit where it can be)
	Quote  string // what the source says
}

// Offer is what a server offers, as a profile judges it.
type Offer struct {
	Server       string // its name in the client's configuration
	Tools        []runtime.Tool
	Instructions string
}

// Finding is one limit of a profile and how the offer stands against it.
type Finding struct {
	Rule   Rule   `json:"rule"`
	Status Status `json:"status"`
	// Detail says what was found: the tools past the limit, or how far
	// from it the offer is.
	Detail string `json:"detail"`
	Effect string `json:"effect,omitempty"` // the limit's effect, when broken
	Source string `json:"source"`
}

// ProfileResult is an offer judged against one profile.
type ProfileResult struct {
	Profile  string    `json:"profile"`
	Client   string    `json:"client"`
	Status   Status    `json:"status"` // the worst finding's
	Findings []Finding `json:"findings"`
}

// ProfileNamed returns the profile called name.
func ProfileNamed(name string) (Profile, bool) {
	i := slices.IndexFunc(Profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return Profiles[i], true
}

// ProfileNames are the names --profile takes, "all" aside.
func ProfileNames() []string {
	out := make([]string, len(Profiles))
	for i, p := range Profiles {
		out[i] = p.Name
	}
	return out
}

// ResolveProfiles turns --profile values into profiles: names, or "all".
func ResolveProfiles(names []string) ([]Profile, error) {
	var out []Profile
	for _, n := range names {
		if n == "all" {
			return Profiles, nil
		}
		p, ok := ProfileNamed(n)
		if !ok {
			return nil, fmt.Errorf("%w: no client profile %q; known: %s, or all", ErrInvalidOptions, n, strings.Join(ProfileNames(), ", "))
		}
		if !slices.ContainsFunc(out, func(q Profile) bool { return q.Name == n }) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Judge holds the offer against every limit of the profile.
func (p Profile) Judge(o Offer) ProfileResult {
	r := ProfileResult{Profile: p.Name, Client: p.Client, Status: Pass}
	for _, l := range p.Limits {
		f := l.judge(o)
		r.Findings = append(r.Findings, f)
		r.Status = max(r.Status, f.Status)
	}
	return r
}

// maxNamed bounds the names a finding lists.
const maxNamed = 5

func (l Limit) judge(o Offer) Finding {
	f := Finding{Rule: l.Rule, Status: Pass, Source: l.Source}
	var past []string // what breaks the limit, described
	longest, longestName := 0, ""
	note := func(name string, n int) {
		if n > longest {
			longest, longestName = n, name
		}
	}
	switch l.Rule {
	case RuleToolNameChars:
		re := regexp.MustCompile(l.Pattern)
		for _, t := range o.Tools {
			if !re.MatchString(t.ServerTool) {
				past = append(past, fmt.Sprintf("%q", t.ServerTool))
			}
		}
		f.Detail = fmt.Sprintf("every tool name matches %s", l.Pattern)
	case RuleToolNameLength, RuleQualifiedNameLength:
		for _, t := range o.Tools {
			name := t.ServerTool
			if l.Rule == RuleQualifiedNameLength {
				name = strings.NewReplacer("{server}", o.Server, "{tool}", t.ServerTool).Replace(l.Format)
			}
			n := utf8.RuneCountInString(name)
			note(name, n)
			if n > l.Max {
				past = append(past, fmt.Sprintf("%q (%d)", name, n))
			}
		}
		f.Detail = fmt.Sprintf("the longest is %q, %d of %d characters", longestName, longest, l.Max)
		if l.Rule == RuleQualifiedNameLength {
			f.Detail = fmt.Sprintf("as %s with the server named %q, %s", l.Format, o.Server, f.Detail)
		}
	case RuleSchemaKeywords:
		for _, t := range o.Tools {
			if used := keywordsIn(t.InputSchema, l.Keywords); len(used) > 0 {
				past = append(past, fmt.Sprintf("%q (%s)", t.ServerTool, strings.Join(used, ", ")))
			}
		}
		f.Detail = "no input schema uses " + strings.Join(l.Keywords, ", ")
	case RuleDescriptionLength:
		for _, t := range o.Tools {
			n := utf8.RuneCountInString(t.Description)
			note(t.ServerTool, n)
			if n > l.Max {
				past = append(past, fmt.Sprintf("%q (%d)", t.ServerTool, n))
			}
		}
		f.Detail = fmt.Sprintf("the longest description is %q's, %d of %d characters", longestName, longest, l.Max)
	case RuleInstructionsLength:
		n := utf8.RuneCountInString(o.Instructions)
		if n > l.Max {
			past = append(past, fmt.Sprintf("the instructions (%d)", n))
		}
		f.Detail = fmt.Sprintf("the instructions are %d of %d characters", n, l.Max)
	case RuleToolCount:
		if len(o.Tools) > l.Max {
			past = append(past, fmt.Sprintf("%d tools", len(o.Tools)))
		}
		f.Detail = fmt.Sprintf("%d of %d tools", len(o.Tools), l.Max)
	}
	if len(past) == 0 {
		return f
	}
	f.Status, f.Effect = l.Status, l.Effect
	more := ""
	if len(past) > maxNamed {
		past, more = past[:maxNamed], fmt.Sprintf(" and %d more", len(past)-maxNamed)
	}
	f.Detail = fmt.Sprintf("%s past the limit: %s%s", l.Rule, strings.Join(past, ", "), more)
	return f
}

// keywordsIn reports which of keywords a JSON Schema uses as a keyword,
// anywhere in it (property names are not keywords).
func keywordsIn(schema json.RawMessage, keywords []string) []string {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return nil
	}
	found := map[string]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 64 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, child := range x {
				if slices.Contains(keywords, k) {
					found[k] = true
				}
				if k == "properties" || k == "$defs" || k == "definitions" || k == "patternProperties" {
					// Their members are names, not keywords: look inside each.
					if m, ok := child.(map[string]any); ok {
						for _, sub := range m {
							walk(sub, depth+1)
						}
						continue
					}
				}
				walk(child, depth+1)
			}
		case []any:
			for _, child := range x {
				walk(child, depth+1)
			}
		}
	}
	walk(v, 0)
	var out []string
	for _, k := range keywords {
		if found[k] {
			out = append(out, k)
		}
	}
	return out
}

// Summary is a profile result on one line: what breaks, or that it fits.
func (r ProfileResult) Summary() string {
	var broken []string
	for _, f := range r.Findings {
		if f.Status != Pass {
			broken = append(broken, fmt.Sprintf("%s: %s (%s)", f.Status, f.Detail, f.Effect))
		}
	}
	if len(broken) == 0 {
		details := make([]string, len(r.Findings))
		for i, f := range r.Findings {
			details[i] = f.Detail
		}
		return fmt.Sprintf("within %s's limits as of %s: %s", r.Client, ProfilesChecked, strings.Join(details, "; "))
	}
	return r.Client + ": " + strings.Join(broken, "; ")
}
