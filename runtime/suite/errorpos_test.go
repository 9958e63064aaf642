package suite

import (
	"testing"
)

// TestErrorExpectationSaysWhere: an unmet error expectation names where it
// is written, as every other expectation's failure does; the code's and the
// message's came without a position.
func TestErrorExpectationSaysWhere(t *testing.T) {
	s, err := Parse("e.mcptest.yaml", []byte("server: demo\nsteps:\n  - read: demo://nope\n    expect:\n      error: {code: -32002, message: '^not found'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	fails := checkError(s.Steps[0].Expect.Error, map[string]any{"code": float64(-32602), "message": "Resource demo://nope not found"})
	if len(fails) != 2 {
		t.Fatalf("%d failures, want the code's and the message's: %+v", len(fails), fails)
	}
	for _, f := range fails {
		if f.Pos != "e.mcptest.yaml:5:7" {
			t.Errorf("the %s failure %q is at %q, not where the expectation is written", f.Expectation, f.Message, f.Pos)
		}
	}
}
