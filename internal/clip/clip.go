// Package clip bounds text quoted in messages, labels and diagnostics:
// a server's line, a URL an app sent, an error for a metric label, a
// tool result over its size bound. It is below every other package of
// ours, so each can cut the same way.
package clip

import "unicode/utf8"

// Text is s cut to at most n bytes, between characters (never inside
// one), with … marking the cut; s itself when it fits.
func Text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}

// Prefix is the longest start of s of at most n bytes that ends between
// characters, unmarked: for a caller that says what was cut its own way.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
