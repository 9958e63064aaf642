package check

import "testing"

// An item's findings come to one status by one rule: a failure fails it
// and its warnings follow the failures; else a warning warns; else the
// item words its own pass.
func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		fails, warns []string
		st           Status
		why          string
		found        bool
	}{
		{nil, nil, Pass, "", false},
		{nil, []string{"w1", "w2"}, Warn, "w1; w2", true},
		{[]string{"f1"}, nil, Fail, "f1", true},
		{[]string{"f1", "f2"}, []string{"w1"}, Fail, "f1; f2; w1", true},
	} {
		st, why, found := verdict(tc.fails, tc.warns)
		if st != tc.st || why != tc.why || found != tc.found {
			t.Errorf("verdict(%q, %q) = %v, %q, %v; want %v, %q, %v", tc.fails, tc.warns, st, why, found, tc.st, tc.why, tc.found)
		}
	}
}
