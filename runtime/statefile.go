package runtime

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// What the era memory (eras.json) and the tool decisions (tools.json)
// share: files in the state directory holding one entry per server
// identity, bounded to the entries seen last so they cannot grow without
// end, written indented for a person to read.

// newestKeys are the keys of m, the entry seen last first, at most limit.
func newestKeys[V any](m map[string]V, limit int, seen func(V) time.Time) []string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return seen(m[b]).Compare(seen(m[a])) })
	return keys[:min(len(keys), limit)]
}

// encodeStateFile is a state file's content: v as indented JSON, ending
// in a newline.
func encodeStateFile(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return append(data, '\n'), err
}
