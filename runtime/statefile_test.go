package runtime

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"mcpdeck/runtime/mcp"
)

// Both state files keep the entries seen last and drop the oldest: the
// bound is what keeps eras.json and tools.json from growing forever.
func TestStateFilesKeepTheNewest(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	eras := map[string]RememberedEra{}
	tools := map[string]*serverDecisions{}
	for i := range maxRememberedEras + 3 {
		key := fmt.Sprintf("id-%04d", i)
		seen := base.Add(time.Duration(i) * time.Hour)
		eras[key] = RememberedEra{Era: mcp.Legacy, Version: "2025-06-18", Server: key, Seen: seen}
		tools[key] = &serverDecisions{Seen: seen}
	}
	data, err := encodeEras(eras)
	if err != nil {
		t.Fatal(err)
	}
	gotEras, err := decodeEras(data)
	if err != nil {
		t.Fatal(err)
	}
	data, err = encodeTools(tools)
	if err != nil {
		t.Fatal(err)
	}
	gotTools, err := decodeTools(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(gotEras) != maxRememberedEras || len(gotTools) != maxToolServers {
		t.Fatalf("kept %d eras and %d tool entries, want %d and %d", len(gotEras), len(gotTools), maxRememberedEras, maxToolServers)
	}
	for i := range 3 {
		old := fmt.Sprintf("id-%04d", i)
		if _, ok := gotEras[old]; ok {
			t.Errorf("eras.json kept %s, one of the three seen first", old)
		}
		if _, ok := gotTools[old]; ok {
			t.Errorf("tools.json kept %s, one of the three seen first", old)
		}
	}
	newest := fmt.Sprintf("id-%04d", maxRememberedEras+2)
	if _, ok := gotEras[newest]; !ok {
		t.Errorf("eras.json dropped %s, the entry seen last", newest)
	}
	if data[len(data)-1] != '\n' {
		t.Errorf("tools.json does not end in a newline")
	}
}

func TestNewestKeys(t *testing.T) {
	m := map[string]int{"a": 3, "b": 1, "c": 2}
	seen := func(v int) time.Time { return time.Unix(int64(v), 0) }
	if got := newestKeys(m, 2, seen); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("newestKeys(limit 2) = %v, want [a c]", got)
	}
	if got := newestKeys(m, 10, seen); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("newestKeys(limit 10) = %v, want [a c b]", got)
	}
}
