package present

import (
	"testing"
	"time"

	"mcpdeck/runtime"
)

// Millis never says 0.0ms: a ping that was measured and fast is <0.1ms,
// one not measured yet is a dash; every value fits six cells.
func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "—"},
		{-time.Millisecond, "—"},
		{time.Microsecond, "<0.1ms"},
		{49 * time.Microsecond, "<0.1ms"},
		{50 * time.Microsecond, "0.1ms"},
		{412 * time.Microsecond, "0.4ms"},
		{2 * time.Millisecond, "2.0ms"},
		{48*time.Millisecond + 260*time.Microsecond, "48.3ms"},
		{99*time.Millisecond + 940*time.Microsecond, "99.9ms"},
		{99*time.Millisecond + 960*time.Microsecond, "100ms"},
		{250 * time.Millisecond, "250ms"},
		{999*time.Millisecond + 600*time.Microsecond, "1.0s"},
		{1234 * time.Millisecond, "1.2s"},
		{75 * time.Second, "75.0s"},
	} {
		got := Millis(tc.d)
		if got != tc.want {
			t.Errorf("Millis(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if n := len([]rune(got)); n > 6 {
			t.Errorf("Millis(%v) = %q is %d cells wide", tc.d, got, n)
		}
	}
}

// AppMark words each way a tool's _meta.ui reads: one word per case, the
// one both faces show.
func TestAppMark(t *testing.T) {
	for _, tc := range []struct{ meta, want string }{
		{``, ""},
		{`{"other":1}`, ""},
		{`{"ui":{"resourceUri":"ui://a"}}`, "app"},
		{`{"ui":{"resourceUri":"ui://a","visibility":["model","app"]}}`, "app"},
		{`{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`, "app-only"},
		{`{"ui":{"resourceUri":"ui://a","visibility":["model"]}}`, "app (model only)"},
	} {
		if got := AppMark(runtime.Tool{Meta: []byte(tc.meta)}); got != tc.want {
			t.Errorf("AppMark(%s) = %q, want %q", tc.meta, got, tc.want)
		}
	}
}
