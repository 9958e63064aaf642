package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestIndentedSizeEstimatesIndent(t *testing.T) {
	for _, raw := range []string{
		`{"a":[1,2,{"b":"x,y{"}],"c":{"d":{"e":true}}}`,
		strings.TrimSpace(string(fixture(t, "pydantic-main-model.json"))),
		strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40),
	} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(raw), "", "  "); err != nil {
			t.Fatal(err)
		}
		got := IndentedSize([]byte(raw))
		if got < b.Len() || got > b.Len()+b.Len()/10+8 {
			t.Errorf("IndentedSize = %d, json.Indent wrote %d", got, b.Len())
		}
	}
}

func TestForOutput(t *testing.T) {
	small := fixture(t, "pydantic-main-model.json")
	if got := ForOutput(small); !bytes.Equal(got, small) {
		t.Errorf("a real schema was changed for output")
	}
	deep := json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, 4900) + `{"type":"string"}` + strings.Repeat(`}}`, 4900))
	var marker map[string]struct {
		Bytes, Nesting int
		Reason         string
	}
	if err := json.Unmarshal(ForOutput(deep), &marker); err != nil {
		t.Fatal(err)
	}
	m := marker[OmittedKey]
	if m.Bytes != len(deep) || m.Nesting != 9801 || !strings.Contains(m.Reason, "9,801 levels deep") {
		t.Errorf("marker = %+v", m)
	}
	// Within the nesting bound, but wide and deep: it would indent to
	// about 128 times its size.
	wide := json.RawMessage(strings.Repeat(`[`, 120) + strings.Repeat(`1,`, 300000) + `1` + strings.Repeat(`]`, 120))
	if Omitted(wide) == "" || !strings.Contains(Omitted(wide), "once indented") {
		t.Errorf("a schema indenting to %d bytes: %q", IndentedSize(wide), Omitted(wide))
	}
}
