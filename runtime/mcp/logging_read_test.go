package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// ReadLoggingMessage reads what json.Unmarshal reads, for the shapes
// servers send and the odd ones the scan hands to encoding/json.
func TestReadLoggingMessageIsUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`{"level":"info","logger":"flood","data":{"seq":1}}`,
		`{"level":"info","data":"plain"}`,
		`{ "data" : [1, {"a": "b"}], "level" : "warning", "_meta": {"k": 1} }`,
		`{"level":"error","data":null}`,
		`{"level":"info","logger":"esc\"aped \u00e9","data":1}`,
		`{"level":"info","logger":"bad ` + "\xff" + `","data":1}`,
		`{"LEVEL":"debug","data":1}`,
		`{"level":"info","level":"error","data":1}`,
		`{"level":7,"logger":"x","data":1}`,
		`{"lev\u0065l":"info","data":1}`,
		`{"level":"info","logger":null,"data":true}`,
		`{"other":{"level":"x"},"level":"notice","data":"d"}`,
		`{}`,
		`[]`,
		`"level"`,
	} {
		var want, got LoggingMessageParams
		_ = json.Unmarshal([]byte(raw), &want)
		ReadLoggingMessage([]byte(raw), &got)
		if !reflect.DeepEqual(normal(got), normal(want)) {
			t.Errorf("%s:\n got %+v\nwant %+v", raw, got, want)
		}
	}
}

// normal makes raw values compare by content (nil and empty alike).
func normal(p LoggingMessageParams) LoggingMessageParams {
	if len(p.Data) == 0 {
		p.Data = nil
	}
	if len(p.Meta) == 0 {
		p.Meta = nil
	}
	return p
}

func BenchmarkReadLoggingMessage(b *testing.B) {
	raw := []byte(`{"level":"info","logger":"flood","data":{"seq":12345}}`)
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p LoggingMessageParams
			ReadLoggingMessage(raw, &p)
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p LoggingMessageParams
			_ = json.Unmarshal(raw, &p)
		}
	})
}
