package record

import (
	"bytes"
	"testing"

	"mcpdeck/config"
)

func TestScrubberFindsEverySecret(t *testing.T) {
	t.Parallel()
	cfg := configOf(config.Server{Name: "a", Env: map[string]string{"API_KEY": "normal", "DB_PASSWORD": `quo"te\1`, "SECRET": "short", "UNIT": "numbers"}},
		config.Server{Name: "b", Headers: map[string]string{"Authorization": "Bearer AbC-123_xyz"}})
	s := newScrubber(cfg, []string{"tok-EN-99"})
	for _, tc := range []struct{ in, want string }{
		{`{"a":"normal"}`, `{"a":"••••••"}`},
		{`{"a":"abnormal, normally"}`, `{"a":"ab••••••, ••••••ly"}`},
		{`{"h":"Bearer AbC-123_xyz"}`, `{"h":"••••••"}`},
		{`{"q":"quo\"te\\1"}`, `{"q":"••••••"}`},
		{`x tok-EN-99`, `x ••••••`},
		{`{"s":"short"}`, `{"s":"short"}`},     // under 6 characters: not a secret
		{`{"u":"numbers"}`, `{"u":"numbers"}`}, // UNIT names no credential
		{`nothing here, nor mal`, `nothing here, nor mal`},
	} {
		if got := s.line([]byte(tc.in)); !bytes.Equal(got, []byte(tc.want)) {
			t.Errorf("line(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
