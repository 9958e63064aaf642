// Package clip bounds text quoted in messages, labels and diagnostics:
// a server's line, a URL an app sent, an error for a metric label. It is
// below every other package of ours, so each can quote the same way.
package clip

import "unicode/utf8"

// Text is s cut to at most n bytes, between characters (never inside
// one), with … marking the cut; s itself when it fits.
func Text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
