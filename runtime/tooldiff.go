package runtime

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// DiffOp says what a piece of a diff is.
type DiffOp int

// The pieces of a diff.
const (
	DiffSame    DiffOp = iota // in both
	DiffRemoved               // only in the approved definition
	DiffAdded                 // only in the definition now
)

// DiffPart is a run of words a diff keeps, removes or adds.
type DiffPart struct {
	Op   DiffOp
	Text string
}

// FieldDiff is the word-level diff of one member of a tool definition.
type FieldDiff struct {
	Field string // name, description, inputSchema, outputSchema, annotations
	Parts []DiffPart
}

// maxDiffTokens bounds a diff: a schema with more distinct words than this
// is shown whole, removed then added, rather than diffed word by word.
const maxDiffTokens = 60000

// DefinitionDiff is the word-level diff between the definition a tool was
// approved with and the one it has now, for each member that differs, in
// the definition's order. Schemas and annotations are compared as indented
// JSON with sorted keys, so a reordering shows as nothing, and a changed
// value as the words that changed.
func DefinitionDiff(approved, now ToolDefinition) []FieldDiff {
	var out []FieldDiff
	for _, f := range changedFields(approved, now) {
		var a, b string
		switch f {
		case "name":
			a, b = approved.Name, now.Name
		case "description":
			a, b = approved.Description, now.Description
		case "inputSchema":
			a, b = indented(approved.InputSchema), indented(now.InputSchema)
		case "outputSchema":
			a, b = indented(approved.OutputSchema), indented(now.OutputSchema)
		case "annotations":
			a, b = indented(approved.Annotations), indented(now.Annotations)
		}
		out = append(out, FieldDiff{Field: f, Parts: wordDiff(a, b)})
	}
	return out
}

// indented is a JSON value with sorted keys, indented two spaces; "" for none.
func indented(raw json.RawMessage) string {
	c := canonicalJSON(raw)
	if len(c) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, c, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// wordDiff diffs a and b by words (runs of letters and digits), runs of
// spaces and single other characters: each distinct token becomes one
// rune of a private range and diffmatchpatch diffs the rune strings, the
// way it diffs lines.
func wordDiff(a, b string) []DiffPart {
	tokens := map[string]rune{}
	var back []string
	encode := func(s string) []rune {
		var out []rune
		for _, tok := range splitWords(s) {
			r, ok := tokens[tok]
			if !ok {
				r = tokenRune(len(back))
				tokens[tok] = r
				back = append(back, tok)
			}
			out = append(out, r)
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	if len(back) > maxDiffTokens {
		return []DiffPart{{Op: DiffRemoved, Text: a}, {Op: DiffAdded, Text: b}}
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = time.Second
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false))
	out := make([]DiffPart, 0, len(diffs))
	for _, d := range diffs {
		var text []byte
		for _, r := range d.Text {
			text = append(text, back[runeToken(r)]...)
		}
		op := DiffSame
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = DiffRemoved
		case diffmatchpatch.DiffInsert:
			op = DiffAdded
		}
		out = append(out, DiffPart{Op: op, Text: string(text)})
	}
	return out
}

// tokenRune and runeToken map token numbers to runes and back: the
// private-use area U+E000–U+F8FF, then the supplementary private-use
// plane from U+F0000; never a surrogate, so every one survives a string.
func tokenRune(i int) rune {
	if i < 0x1900 {
		return rune(0xE000 + i)
	}
	return rune(0xF0000 + i - 0x1900)
}

func runeToken(r rune) int {
	if r < 0xF0000 {
		return int(r - 0xE000)
	}
	return int(r-0xF0000) + 0x1900
}

// splitWords cuts s into words, runs of white space, and single other
// characters, which together are s again.
func splitWords(s string) []string {
	var out []string
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		class := func(r rune) int {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
				return 1
			case unicode.IsSpace(r):
				return 2
			}
			return 0
		}
		c := class(r)
		end := n
		if c != 0 {
			for end < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[end:])
				if class(r2) != c {
					break
				}
				end += n2
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
