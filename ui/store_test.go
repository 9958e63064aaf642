package ui

import (
	"encoding/json"
	"testing"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

func TestRingKeepsNewestAndCountsDrops(t *testing.T) {
	t.Parallel()
	r := newRing[int](3)
	for i := range 5 {
		r.push(i)
	}
	if r.len() != 3 || r.dropped() != 2 || r.oldest() != 2 {
		t.Fatalf("len %d dropped %d oldest %d; want 3, 2, 2", r.len(), r.dropped(), r.oldest())
	}
	for seq := r.oldest(); seq < r.next; seq++ {
		if *r.at(seq) != int(seq) {
			t.Errorf("at(%d) = %d", seq, *r.at(seq))
		}
	}
}

// A ring allocates as items arrive, never past its size, and keeps the
// newest when full exactly as a preallocated one did.
func TestRingGrowsOnlyAsNeeded(t *testing.T) {
	t.Parallel()
	r := newRing[[256]byte](1000)
	if cap(r.buf) != 0 {
		t.Fatalf("an empty ring holds room for %d items", cap(r.buf))
	}
	for i := range 2500 {
		var v [256]byte
		v[0], v[1] = byte(i), byte(i>>8)
		r.push(v)
		if cap(r.buf) > 1000 {
			t.Fatalf("after %d pushes the buffer holds %d items, past the size 1000", i+1, cap(r.buf))
		}
	}
	if r.len() != 1000 || r.dropped() != 1500 || r.oldest() != 1500 {
		t.Fatalf("len %d dropped %d oldest %d; want 1000, 1500, 1500", r.len(), r.dropped(), r.oldest())
	}
	for seq := r.oldest(); seq < r.next; seq++ {
		if v := r.at(seq); int(v[0])|int(v[1])<<8 != int(seq) {
			t.Fatalf("at(%d) holds item %d", seq, int(v[0])|int(v[1])<<8)
		}
	}
	// Cleared (a replay seeking back), it fills again from seq 0.
	r.clear()
	for i := range 3 {
		r.push([256]byte{byte(i)})
	}
	if r.len() != 3 || r.dropped() != 0 || r.at(2)[0] != 2 {
		t.Fatalf("after clear and 3 pushes: len %d dropped %d, at(2) holds %d", r.len(), r.dropped(), r.at(2)[0])
	}
}

func TestStreamFilterFollowsArrivalsAndOverwrites(t *testing.T) {
	t.Parallel()
	r := newRing[int](10)
	s := stream[int]{r: r}
	s.setMatch(func(v *int) bool { return *v%2 == 0 })
	for i := range 15 {
		r.push(i)
		s.catchUp()
	}
	// Kept: 5..14; even: 6, 8, 10, 12, 14.
	if s.count() != 5 || *r.at(s.seqAt(0)) != 6 {
		t.Fatalf("count %d first %d; want 5 and 6", s.count(), *r.at(s.seqAt(0)))
	}
}

func TestFollowerPausesAndResumes(t *testing.T) {
	t.Parallel()
	r := newRing[int](100)
	s := stream[int]{r: r}
	for i := range 50 {
		r.push(i)
	}
	f := follower{follow: true}
	if sel, top := f.window(s.index, s.count(), 10); sel != 49 || top != 40 {
		t.Fatalf("following: sel %d top %d; want 49, 40", sel, top)
	}
	streamMove(&f, &s, 10, -5)
	if f.follow {
		t.Fatal("moving up did not pause")
	}
	for i := range 20 {
		r.push(50 + i)
	}
	if sel, _ := f.window(s.index, s.count(), 10); *r.at(s.seqAt(sel)) != 44 {
		t.Errorf("paused selection moved with arrivals: now on %d, want 44", *r.at(s.seqAt(sel)))
	}
	streamMove(&f, &s, 10, 1000)
	if !f.follow {
		t.Error("reaching the newest item did not resume following")
	}
	streamPause(&f, &s, 10)
	if f.follow {
		t.Error("p did not pause")
	}
}

func TestParseFilter(t *testing.T) {
	t.Parallel()
	n := noteOf(runtime.LogMessage{EventHeader: runtime.EventHeader{Server: "everything"}, Level: "error", Logger: "db",
		Data: json.RawMessage(`"Connection refused"`)})
	if n.level != "error" || n.text != "[db] Connection refused" {
		t.Fatalf("note = %+v", n)
	}
	cases := map[string]bool{
		"":                           true,
		"refused":                    true,
		"REFUSED db":                 true,
		"level:error":                true,
		"level:info":                 false,
		"method:message":             true,
		"method:progress":            false,
		"server:every refused":       true,
		"server:weather":             false,
		"level:error missing-string": false,
	}
	for q, want := range cases {
		if got := parseFilter(q).matchNote(&n); got != want {
			t.Errorf("filter %q matched %v, want %v", q, got, want)
		}
	}
}

func TestProgressNotificationDecoded(t *testing.T) {
	t.Parallel()
	n := noteOf(runtime.Progress{Token: "7", Progress: 2, Total: 8, Message: "two"})
	if n.progress == nil || n.progress.label != "7" || n.progress.total != 8 || n.text != "2/8 (25%) two (token 7)" {
		t.Fatalf("progress note = %+v %+v", n, n.progress)
	}
	bar, label := progressBar(2, 8, 8)
	if bar != "██░░░░░░" || label != " 25%" {
		t.Errorf("bar %q label %q", bar, label)
	}
}

// noteOf is the Notifications tab entry of e.
func noteOf(e runtime.Event) note {
	l, _ := present.Describe(e)
	return newNote(e, l)
}
