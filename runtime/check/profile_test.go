package check

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

var updateProfiles = flag.Bool("update", false, "rewrite PROFILES.md from the profile table")

// PROFILES.md is the profile table, rendered: it cannot drift from the
// limits the check applies.
func TestProfilesDoc(t *testing.T) {
	want := ProfilesMarkdown()
	if *updateProfiles {
		if err := os.WriteFile("PROFILES.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("PROFILES.md")
	if err != nil || string(got) != want {
		t.Fatalf("PROFILES.md differs from the table in profiles.go (%v): run go test ./runtime/check -run TestProfilesDoc -update", err)
	}
}

// Every limit of the table is complete: a rule the judge knows, the value
// it needs, a status, what the client does, and a source with a quote.
func TestProfileTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Profiles {
		if seen[p.Name] || p.Name == "all" || p.Client == "" || len(p.Limits) == 0 {
			t.Errorf("profile %+v", p)
		}
		seen[p.Name] = true
		for _, l := range p.Limits {
			where := p.Name + " " + string(l.Rule)
			switch {
			case !containsRule(l.Rule):
				t.Errorf("%s: unknown rule", where)
			case l.Status != Warn && l.Status != Fail:
				t.Errorf("%s: status %s", where, l.Status)
			case !strings.HasPrefix(l.Source, "https://") || l.Quote == "" || l.Effect == "":
				t.Errorf("%s: source %q, quote %q, effect %q", where, l.Source, l.Quote, l.Effect)
			case (l.Rule == RuleToolNameChars) != (l.Pattern != ""),
				(l.Rule == RuleQualifiedNameLength) != (l.Format != ""),
				(l.Rule == RuleSchemaKeywords) != (len(l.Keywords) > 0):
				t.Errorf("%s: the rule's parameters do not fit it: %+v", where, l)
			}
		}
	}
}

func containsRule(r Rule) bool {
	for _, x := range Rules {
		if x == r {
			return true
		}
	}
	return false
}

func tool(name, desc, schema string) runtime.Tool {
	return runtime.Tool{ServerTool: name, Description: desc, InputSchema: json.RawMessage(schema)}
}

// Each rule judges what it says, names what breaks it, and says what the
// client does then; what fits passes with how far from the limit it is.
func TestProfileJudge(t *testing.T) {
	long := strings.Repeat("x", 60)
	offer := Offer{Server: "my-server", Instructions: strings.Repeat("i", 3000), Tools: []runtime.Tool{
		tool("ok_tool", "short", `{"type":"object"}`),
		tool("has.dot", strings.Repeat("d", 2049), `{"type":"object","properties":{"$defs":{"type":"string"}}}`),
		tool(long, "", `{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"string"}}}`),
	}}
	claude, _ := ProfileNamed("claude-code")
	r := claude.Judge(offer)
	if r.Status != Fail {
		t.Fatalf("claude-code: %s", r.Summary())
	}
	byRule := map[Rule]Finding{}
	for _, f := range r.Findings {
		byRule[f.Rule] = f
	}
	if f := byRule[RuleToolNameChars]; f.Status != Fail || !strings.Contains(f.Detail, `"has.dot"`) || strings.Contains(f.Detail, "ok_tool") {
		t.Errorf("names: %+v", f)
	}
	if f := byRule[RuleQualifiedNameLength]; f.Status != Fail || !strings.Contains(f.Detail, `"mcp__my-server__`+long+`" (76)`) {
		t.Errorf("qualified names: %+v", f)
	}
	if f := byRule[RuleDescriptionLength]; f.Status != Warn || !strings.Contains(f.Detail, `"has.dot" (2049)`) || !strings.Contains(f.Effect, "cut at 2 KB") {
		t.Errorf("descriptions: %+v", f)
	}
	if f := byRule[RuleInstructionsLength]; f.Status != Warn || !strings.Contains(f.Detail, "(3000)") {
		t.Errorf("instructions: %+v", f)
	}
	gemini, _ := ProfileNamed("gemini-cli")
	r = gemini.Judge(offer)
	for _, f := range r.Findings {
		if f.Rule == RuleSchemaKeywords && (f.Status != Warn || !strings.Contains(f.Detail, long) || strings.Contains(f.Detail, "has.dot")) {
			t.Errorf("keywords (a property named $defs is no keyword): %+v", f)
		}
		if f.Rule == RuleToolNameChars && f.Status != Pass {
			t.Errorf("gemini allows dots: %+v", f)
		}
	}
	// The same offer cut down fits VS Code; 129 tools do not.
	vscode, _ := ProfileNamed("vscode")
	if r := vscode.Judge(offer); r.Status != Pass || !strings.Contains(r.Summary(), "within GitHub Copilot in VS Code's limits as of "+ProfilesChecked+": 3 of 128 tools") {
		t.Errorf("vscode: %s", r.Summary())
	}
	many := Offer{Server: "s"}
	for i := range 129 {
		many.Tools = append(many.Tools, tool("t"+strings.Repeat("x", i%5), "", `{}`))
	}
	if r := vscode.Judge(many); r.Status != Fail || !strings.Contains(r.Findings[0].Detail, "129 tools") {
		t.Errorf("129 tools: %+v", r)
	}
}

func TestResolveProfiles(t *testing.T) {
	if ps, err := ResolveProfiles([]string{"all"}); err != nil || len(ps) != len(Profiles) {
		t.Fatalf("all: %d %v", len(ps), err)
	}
	if ps, err := ResolveProfiles([]string{"codex", "codex", "cursor"}); err != nil || len(ps) != 2 {
		t.Fatalf("codex twice: %v %v", ps, err)
	}
	if _, err := ResolveProfiles([]string{"clade"}); err == nil || !strings.Contains(err.Error(), "known: claude-code, codex") {
		t.Fatalf("unknown: %v", err)
	}
}
