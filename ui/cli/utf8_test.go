package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestFixUTF8(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]struct {
		out string
		n   int
	}{
		"plain é":            {"plain é", 0},
		"bad \xff\xfe bytes": {"bad \uFFFD bytes", 1},
		"\xffa\xfeb":         {"\uFFFDa\uFFFDb", 2},
		"cut \xe2\x82":       {"cut \uFFFD", 1},
		"{\"d\":\"x\xc0\"}":  {`{"d":"x` + "\uFFFD" + `"}`, 1},
	} {
		got, n := fixUTF8([]byte(in))
		if string(got) != want.out || n != want.n || !utf8.Valid(got) {
			t.Errorf("fixUTF8(%q) = %q, %d; want %q, %d", in, got, n, want.out, want.n)
		}
	}
}

// A server's log data with bytes that are not UTF-8 made watch --json emit
// invalid UTF-8 (and so invalid JSON for strict readers). It is replaced
// and counted.
func TestWatchJSONIsValidUTF8(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"bad": srvFake(jsonrpctest.BadUTF8)})
	r := h.run(t, "", "watch", "--json", "--for", "300ms")
	wantCode(t, r, ExitOK)
	if !utf8.ValidString(r.stdout) {
		t.Fatalf("watch --json printed invalid UTF-8:\n%q", r.stdout)
	}
	var log *watchLine
	for _, l := range decodeWatch(t, r.stdout) {
		if l.Kind == "log" && l.Logger == "bad-utf8" {
			log = &l
		}
	}
	if log == nil {
		t.Fatalf("no log line from the bad-utf8 server:\n%s", r.stdout)
	}
	var data string
	if err := json.Unmarshal(log.Data, &data); err != nil || data != "bad \uFFFD bytes" || log.InvalidUTF8 != 1 {
		t.Fatalf("log data %s (%v), invalidUTF8 %d; want \"bad \\uFFFD bytes\" and a count of 1", log.Data, err, log.InvalidUTF8)
	}
	if !strings.Contains(r.stderr, "replaced 1 byte sequence of invalid UTF-8") {
		t.Errorf("stderr does not report the replacement:\n%s", r.stderr)
	}
}
