package runtime

import "testing"

// TestEndedTokensAreBounded: the tokens kept for late progress are at most
// maxEndedTokens, the oldest forgotten first, however many calls end within
// lateProgressWindow (a bench ends thousands a second; each end once
// walked every token kept).
func TestEndedTokensAreBounded(t *testing.T) {
	var f inflight
	const calls = 3 * maxEndedTokens
	var last *activeCall
	for i := range calls {
		ac := &activeCall{tool: "echo"}
		f.add(ac, uint64(i+1))
		f.remove(ac, i%2 == 0)
		last = ac
	}
	if len(f.ended) > maxEndedTokens || len(f.endedOrder) > maxEndedTokens {
		t.Fatalf("after %d calls ended, %d tokens kept (%d in order); want at most %d", calls, len(f.ended), len(f.endedOrder), maxEndedTokens)
	}
	ev := Progress{Token: last.token}
	f.progressed(&ev, ProgressInfo{})
	if ev.Tool != "echo" || ev.Late != "ended" {
		t.Errorf("late progress of the last call: tool %q, late %q; want echo, ended", ev.Tool, ev.Late)
	}
	ev = Progress{Token: "mcpdeck-1"}
	f.progressed(&ev, ProgressInfo{})
	if ev.Tool != "" {
		t.Errorf("the first call's token is still known (tool %q) after %d later calls ended", ev.Tool, calls-1)
	}
}
