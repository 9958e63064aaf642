package present

import (
	"fmt"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

// TestEveryErrorKindIsWorded walks the runtime's table of error kinds: each
// kind has an entry in hints (nil only by decision), a worded kind has a
// hint for the command line, and an error wrapping the kind's sentinel is
// given a hint. A kind added to the runtime fails here until it is
// worded, or declared wordless, in hints.
func TestEveryErrorKindIsWorded(t *testing.T) {
	kinds := map[runtime.ErrorKind]bool{}
	for _, r := range runtime.ErrorKinds() {
		kinds[r.Kind] = true
		h, ok := hints[r.Kind]
		if !ok {
			t.Errorf("error kind %s has no entry in hints: word it, or give it nil", r.Name)
			continue
		}
		if h == nil {
			continue
		}
		info := &runtime.ErrorInfo{Kind: r.Kind, Server: "s", Method: "tools/call", Message: "m"}
		cli := Hint(info, CLI)
		if cli == "" {
			t.Errorf("error kind %s has words in hints but none for the command line", r.Name)
			continue
		}
		if r.Sentinel != nil {
			err := fmt.Errorf("doing it: %w", r.Sentinel)
			if got := ErrorText(err, CLI); !strings.HasPrefix(got, err.Error()+" (") {
				t.Errorf("an error wrapping %v reads %q, without its kind's hint", r.Sentinel, got)
			}
		}
	}
	for k := range hints {
		if !kinds[k] {
			t.Errorf("hints words %s, which is not in the runtime's table", k)
		}
	}
}
