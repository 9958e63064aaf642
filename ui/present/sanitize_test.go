package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCleanMakesTerminalControlVisible(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"title \x1b]0;pwned\x07 set", `title \x1b]0;pwned\x07 set`},
		{"clip \x1b]52;c;aGk=\x1b\\", `clip \x1b]52;c;aGk=\x1b\`},
		{"move \x1b[2J\x1b[H", `move \x1b[2J\x1b[H`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"crlf\r\nline", "crlf\nline"},
		{"over\rwrite", `over\x0dwrite`},
		{"del\x7f", `del\x7f`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"emoji 👩‍💻 and ünïcode", "emoji 👩‍💻 and ünïcode"},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if !Visible(Clean(c.in)) {
			t.Errorf("Clean(%q) is not stable", c.in)
		}
	}
}

func TestLineFlattensNewlinesAndTabs(t *testing.T) {
	if got := Line("one  \n   two\tthree\x1b[1m"); got != `one ⏎ two three\x1b[1m` {
		t.Errorf("Line = %q", got)
	}
	if got := OneLine("abcdef", 3); got != "abc…" {
		t.Errorf("OneLine = %q", got)
	}
	if got := Block("a\tb"); got != "a    b" {
		t.Errorf("Block = %q", got)
	}
}

func TestWriteJSONStaysFaithfulAndSafe(t *testing.T) {
	v := map[string]string{"desc": "a\x1b]52;c;x\x07 \u009b \u202e z"}
	var b bytes.Buffer
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") {
		t.Fatalf("raw control in JSON output: %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("invalid JSON %q: %v", out, err)
	}
	if back["desc"] != v["desc"] {
		t.Errorf("round trip %q, want %q", back["desc"], v["desc"])
	}
	line, err := MarshalLine(json.RawMessage("{\"a\":\"\u202e\",\"b\":\"\xff\"}"))
	if err != nil || !json.Valid(line) || bytes.ContainsAny(line, "\u202e\xff") {
		t.Errorf("MarshalLine = %q, %v", line, err)
	}
}

func TestWordingHelpers(t *testing.T) {
	if Count(1, "tool", "tools") != "1 tool" || Count(14, "tool", "tools") != "14 tools" || Count(0, "page", "pages") != "0 pages" {
		t.Error("Count")
	}
	if got := TruncateWords("the server did not answer in time", 20); got != "the server did not…" {
		t.Errorf("TruncateWords = %q", got)
	}
	if got := Wrap("a longword here", 8); strings.Join(got, "|") != "a|longword|here" {
		t.Errorf("Wrap = %q", got)
	}
	if got := CommandLine("npx", []string{"-y", "two words", "", "a$b", "it's", "--x=1"}); got != `npx -y 'two words' '' 'a$b' 'it'\''s' --x=1` {
		t.Errorf("CommandLine = %s", got)
	}
	if got := CommandLine("run\x1b]0;x\x07", nil); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("CommandLine kept a control: %q", got)
	}
}

func TestShowHidden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcode, 😀", "plain text, ünïcode, 😀"},
		{"zero\u200bwidth\u2060joined\ufeff", `zero\u200bwidth\u2060joined\ufeff`},
		{"tags\U000E0041\U000E007F", `tags\U000e0041\U000e007f`},
	} {
		if got := ShowHidden(c.in); got != c.want {
			t.Errorf("ShowHidden(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
