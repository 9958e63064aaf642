package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"},  // 2 would split é: cut before it
		{"éé", 3, "é…"},  // likewise in the middle
		{"日本語", 4, "日…"}, // a three-byte character
		{"x", 0, "x"[:0] + "…"},
	} {
		if got := Text(c.s, c.n); got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	if got := Prefix("aéb", 2); got != "a" {
		t.Errorf("Prefix(aéb, 2) = %q, want a", got)
	}
	if got := Prefix("aéb", 3); got != "aé" {
		t.Errorf("Prefix(aéb, 3) = %q, want aé", got)
	}
	long := strings.Repeat("é", 150)
	for n := range 40 {
		if got := Text(long, n); !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Fatalf("Text(é×150, %d) = %q: split a character or overran", n, got)
		}
	}
}
