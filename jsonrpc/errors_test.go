package jsonrpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A server's long error data is quoted cut between characters: data in
// any language, cut inside a character, would put invalid UTF-8 into the
// message every face prints.
func TestErrorDataCutBetweenCharacters(t *testing.T) {
	data := `"` + strings.Repeat("é", 200) + `"`
	msg := (&Error{Code: -32000, Message: "failed", Data: []byte(data)}).Error()
	if !utf8.ValidString(msg) {
		t.Fatalf("the message is not valid UTF-8: %q", msg)
	}
	if !strings.Contains(msg, "é… (402 bytes)") {
		t.Errorf("the message does not say the data was cut: %q", msg)
	}
	if short := (&Error{Code: 1, Message: "m", Data: []byte(`{"a":1}`)}).Error(); short != `m (code 1, data {"a":1})` {
		t.Errorf("short data: %q", short)
	}
}
