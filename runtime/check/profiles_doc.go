package check

import (
	"fmt"
	"strings"
)

// ProfilesMarkdown renders the profile table as PROFILES.md: one section
// per client, one row per limit, with its source and what it says.
func ProfilesMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Client profiles of `mcpdeck check --profile`\n\n")
	fmt.Fprintf(&b, "What well-known MCP clients accept of a server, each limit with where it is written. "+
		"Checked against the sources on **%s**. Generated from `runtime/check/profiles.go` "+
		"(`go test ./runtime/check -run TestProfilesDoc -update`); change the table there, not here.\n\n", ProfilesChecked)
	b.WriteString("A limit past which a client refuses the server or breaks is a FAIL; one past which it renames a tool, " +
		"cuts text or leaves something out is a WARN. Where a client is closed source, the source is its own error " +
		"text as quoted in a public report, and the quote says so.\n")
	for _, p := range Profiles {
		fmt.Fprintf(&b, "\n## %s (`--profile %s`)\n\n", p.Client, p.Name)
		b.WriteString("| rule | limit | past it | status | source |\n|---|---|---|---|---|\n")
		for _, l := range p.Limits {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | [%s](%s): %s |\n", l.Rule, cell(l.describe()), cell(l.Effect), l.Status,
				cell(shortSource(l.Source)), l.Source, cell(l.Quote))
		}
	}
	return b.String()
}

// describe states the limit itself.
func (l Limit) describe() string {
	switch l.Rule {
	case RuleToolNameChars:
		return "tool names match `" + l.Pattern + "`"
	case RuleToolNameLength:
		return fmt.Sprintf("tool names of at most %d characters", l.Max)
	case RuleQualifiedNameLength:
		return fmt.Sprintf("`%s` of at most %d characters", l.Format, l.Max)
	case RuleSchemaKeywords:
		return "no `" + strings.Join(l.Keywords, "`, `") + "` in input schemas"
	case RuleDescriptionLength:
		return fmt.Sprintf("tool descriptions of at most %d characters", l.Max)
	case RuleInstructionsLength:
		return fmt.Sprintf("instructions of at most %d characters", l.Max)
	case RuleToolCount:
		return fmt.Sprintf("at most %d tools", l.Max)
	}
	return string(l.Rule)
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// shortSource names a source for the table: host and path, without a
// pinned commit's length.
func shortSource(u string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "github.com/")
	if i := strings.Index(s, "/blob/"); i >= 0 {
		rest := s[i+len("/blob/"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			s = s[:i] + " " + rest[j+1:]
		}
	}
	return s
}
