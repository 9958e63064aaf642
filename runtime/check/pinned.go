package check

import (
	"fmt"
	"strings"

	"mcpdeck/runtime"
)

// pinnedDefinitions compares the tools as listed with the definitions the
// operator approved (runtime.ToolPolicy): a tool whose definition changed
// since, or that the server added later under another server's tool name,
// fails, each named with what changed. A server listed for the first time
// has its definitions pinned by this listing, and passes.
func (c *checker) pinnedDefinitions() (Status, string, []ChangedTool) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip, nil
	}
	var changed []ChangedTool
	var words []string
	pinned := 0
	for _, t := range c.tools {
		if t.PinnedHash != "" {
			pinned++
		}
		if t.Changed == nil {
			continue
		}
		changed = append(changed, ChangedTool{Tool: t.ServerTool, ToolChange: *t.Changed})
		words = append(words, fmt.Sprintf("%q (%s)", t.ServerTool, changeWords(t.Changed)))
	}
	switch {
	case len(changed) > 0:
		return Fail, fmt.Sprintf("%s since approved: %s; mcpdeck gateway withholds %s until accepted: read the change with mcpdeck tools %s TOOL, then mcpdeck tools accept %s TOOL (or --all)",
			count(len(changed), "tool changed", "tools changed"), strings.Join(words, "; "), pronoun(len(changed)), c.name, c.name), changed
	case len(c.tools) == 0:
		return Pass, "the server lists no tools: nothing to pin", nil
	case pinned == 0:
		return Pass, fmt.Sprintf("%s listed; none is pinned (the tool decisions were not available)", count(len(c.tools), "tool", "tools")), nil
	}
	return Pass, fmt.Sprintf("%s as approved (pinned in %s)", count(pinned, "tool definition", "tool definitions"), pinnedWhere(c.opts.Tools)), nil
}

// instructionText warns about changed tools whose new description reads
// as instructions aimed at the model (runtime.InstructionLike): a hidden
// order in a description every model reads is how a rug pull works.
func (c *checker) instructionText() (Status, string, []ChangedTool) {
	if skip := c.prerequisite(); skip != "" {
		return Skip, skip, nil
	}
	var flagged []ChangedTool
	var words []string
	changed := 0
	for _, t := range c.tools {
		if t.Changed == nil {
			continue
		}
		changed++
		if len(t.Changed.InstructionLike) == 0 {
			continue
		}
		flagged = append(flagged, ChangedTool{Tool: t.ServerTool, ToolChange: *t.Changed})
		words = append(words, fmt.Sprintf("%q: %s", t.ServerTool, strings.Join(t.Changed.InstructionLike, ", ")))
	}
	switch {
	case len(flagged) > 0:
		return Warn, "the changed description reads as instructions to the model: " + strings.Join(words, "; ") +
			": do not accept it unless the server's author meant it", flagged
	case changed == 0:
		return Pass, "no tool changed since approved", nil
	}
	return Pass, fmt.Sprintf("none of the %s has instruction-like text in its description", count(changed, "changed tool", "changed tools")), nil
}

// changeWords says how a tool changed, in a few words.
func changeWords(ch *runtime.ToolChange) string {
	if ch.Kind == runtime.ChangeShadows {
		return fmt.Sprintf("added later, taking the name of a tool of %q", ch.Shadows)
	}
	if len(ch.Fields) == 0 {
		return "its definition; the approved text was too large to keep"
	}
	return strings.Join(ch.Fields, ", ")
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// pinnedWhere names the file the pins are kept in.
func pinnedWhere(p *runtime.ToolPolicy) string {
	if path := p.Path(); path != "" {
		return path
	}
	return "this check's memory only"
}
