package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"mcpdeck/runtime/mcp"
)

// ToolDefinition is what a model reads of a tool: its name (the server's),
// description, input and output schemas and annotations. It is what a pin
// covers and what a tool's cost counts; the title, icons and _meta are for
// hosts and people, and are left out of both.
type ToolDefinition struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Definition is the tool's definition, under the server's own name.
func (t Tool) Definition() ToolDefinition {
	return ToolDefinition{Name: t.ServerTool, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}

// ToolCost is what a tool's listing costs an agent's context: Bytes of its
// definition serialised as compact JSON (name, description, inputSchema,
// outputSchema, annotations: what a client hands the model), and Tokens,
// estimated as Bytes/4 rounded up. The estimate is a rule of thumb for
// JSON and English under the BPE tokenizers models use (mcpdeck ships no
// tokenizer: none in Go matches the tokenizers of every model a client may
// run, and each weighs megabytes); it errs on the high side for plain
// English and the low side for schemas full of short keys.
type ToolCost struct {
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// Add sums two costs.
func (c ToolCost) Add(o ToolCost) ToolCost {
	return ToolCost{Bytes: c.Bytes + o.Bytes, Tokens: c.Tokens + o.Tokens}
}

// ToolTotals is what a server's tools cost an agent's context: all of
// them, and those not switched off (ServerSnapshot.ToolCost, ToolCostOn).
func ToolTotals(tools []Tool) (all, on ToolCost) {
	for _, t := range tools {
		all = all.Add(t.Cost)
		if !t.Disabled {
			on = on.Add(t.Cost)
		}
	}
	return all, on
}

// Listed is t as a listing makes it: its Cost and Hash filled from its
// definition. The runtime does this to every tool it lists; a fake runtime
// does it to its fixtures.
func Listed(t Tool) Tool { return withDefinition(t) }

// BytesPerToken is the divisor of the token estimate (see ToolCost).
const BytesPerToken = 4

// Cost is what listing the definition costs an agent's context.
func (d ToolDefinition) Cost() ToolCost {
	raw, err := mcp.Marshal(d) // as a client serialises it
	n := len(raw)
	if err != nil {
		// A schema that is not JSON (it came through a JSON decoder, so it
		// cannot be): count its bytes as they are.
		n = len(d.Name) + len(d.Description) + len(d.InputSchema) + len(d.OutputSchema) + len(d.Annotations)
	}
	return ToolCost{Bytes: n, Tokens: (n + BytesPerToken - 1) / BytesPerToken}
}

// canonical is the definition as the bytes its hash is taken over: its
// JSON members decoded and encoded again, so that the order of keys and
// the whitespace a server happens to send change nothing, while any change
// of a value does.
func (d ToolDefinition) canonical() []byte {
	c := d
	c.InputSchema, c.OutputSchema, c.Annotations = canonicalJSON(d.InputSchema), canonicalJSON(d.OutputSchema), canonicalJSON(d.Annotations)
	b, err := mcp.Marshal(c)
	if err != nil {
		return []byte(fmt.Sprintf("%q\x00%q\x00%q\x00%q\x00%q", d.Name, d.Description, d.InputSchema, d.OutputSchema, d.Annotations))
	}
	return b
}

// canonicalJSON re-encodes a JSON value with sorted keys and no
// insignificant whitespace; numbers keep their text. A value that does not
// decode is kept as it is.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := mcp.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// Hash is the SHA-256 of the definition's canonical form, in hex: what a
// pin records.
func (d ToolDefinition) Hash() string {
	h := sha256.Sum256(d.canonical())
	return hex.EncodeToString(h[:])
}

// withDefinition fills a listed tool's Cost and Hash, once, when it is
// listed: publications compare hashes, never schemas.
func withDefinition(t Tool) Tool {
	d := t.Definition()
	t.Cost, t.Hash = d.Cost(), d.Hash()
	return t
}

// changedFields names the members in which two definitions differ, in
// the definition's order.
func changedFields(old, cur ToolDefinition) []string {
	var out []string
	if old.Name != cur.Name {
		out = append(out, "name")
	}
	if old.Description != cur.Description {
		out = append(out, "description")
	}
	for _, f := range []struct {
		name     string
		old, cur json.RawMessage
	}{{"inputSchema", old.InputSchema, cur.InputSchema}, {"outputSchema", old.OutputSchema, cur.OutputSchema},
		{"annotations", old.Annotations, cur.Annotations}} {
		if !bytes.Equal(canonicalJSON(f.old), canonicalJSON(f.cur)) {
			out = append(out, f.name)
		}
	}
	return out
}

// instructionPhrases are phrases of text aimed at the model rather than
// describing the tool, as tool-poisoning attacks write them: override the
// instructions the model has, hide what it does from the person, or point
// it at secrets. Matched in lower case with whitespace collapsed.
var instructionPhrases = []string{
	"ignore previous", "ignore all previous", "ignore the previous", "ignore prior", "ignore all prior",
	"ignore the above", "ignore all instructions", "ignore your instructions",
	"disregard previous", "disregard all previous", "disregard the above", "disregard prior", "disregard your instructions",
	"forget previous", "forget all previous", "forget your instructions", "new instructions:",
	"do not tell the user", "don't tell the user", "do not inform the user", "don't inform the user",
	"do not mention", "don't mention", "without telling the user", "without informing the user",
	"the user must not know", "hide this from the user", "keep this secret", "do not reveal", "don't reveal",
	"do not show the user", "don't show the user", "not visible to the user",
	"<important>", "</important>", "<system>", "</system>", "system prompt",
	"~/.ssh", "id_rsa", ".env file", "mcp.json",
}

// InstructionLike says what in a tool description reads as instructions
// aimed at the model rather than a description of the tool: phrases that
// override the model's instructions or hide things from the person, and
// characters a person cannot see (Unicode tag characters U+E0000–U+E007F,
// which spell hidden ASCII, with that text; zero-width characters; bidi
// overrides and isolates, which reorder what is shown). Empty when nothing
// does. Each finding is one short line, the server's text quoted as data.
func InstructionLike(desc string) []string {
	var out []string
	norm := strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(desc, "’", "'"))), " ")
	for _, p := range instructionPhrases {
		if strings.Contains(norm, p) {
			out = append(out, fmt.Sprintf("the phrase %q", p))
		}
	}
	var tags strings.Builder
	var nTags, nZero, nBidi int
	for _, r := range desc {
		switch {
		case TagChar(r):
			nTags++
			if r >= 0xE0020 && r <= 0xE007E {
				tags.WriteRune(r - 0xE0000)
			}
		case ZeroWidth(r):
			nZero++
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
			nBidi++
		}
	}
	if nTags > 0 {
		hidden := tags.String()
		if utf8.RuneCountInString(hidden) > 80 {
			hidden = string([]rune(hidden)[:80]) + "…"
		}
		out = append(out, fmt.Sprintf("%s (U+E0000–U+E007F), spelling %q", characters(nTags, "hidden Unicode tag"), hidden))
	}
	if nZero > 0 {
		out = append(out, characters(nZero, "zero-width"))
	}
	if nBidi > 0 {
		out = append(out, characters(nBidi, "bidirectional override or isolate"))
	}
	return out
}

// characters is "1 KIND character" or "N KIND characters".
func characters(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + " character"
	}
	return fmt.Sprintf("%d %s characters", n, kind)
}

// newInstructionLike is what InstructionLike finds in cur and not in old:
// a description that already said "do not mention" when it was pinned is
// not flagged again for it.
func newInstructionLike(old, cur string) []string {
	was := map[string]bool{}
	for _, f := range InstructionLike(old) {
		was[f] = true
	}
	var out []string
	for _, f := range InstructionLike(cur) {
		if !was[f] {
			out = append(out, f)
		}
	}
	return out
}

// ZeroWidth reports the zero-width characters (U+200B–U+200D, U+2060,
// U+FEFF, U+180E): invisible, they split or join words a reader sees as
// one. Every face shows them escaped in a tool's title and description.
func ZeroWidth(r rune) bool {
	return r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF || r == 0x180E
}

// TagChar reports the Unicode tag characters (U+E0000–U+E007F), which
// spell ASCII that no one sees but a model reads.
func TagChar(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }
