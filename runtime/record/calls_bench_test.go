package record

import (
	"bytes"
	"fmt"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// BenchmarkIndexCalls measures rebuilding the call history of a recording
// of 5000 tool calls (20000 event lines), against reading it:
//
//	go test ./runtime/record -run '^$' -bench IndexCalls
func BenchmarkIndexCalls(b *testing.B) {
	var events []runtime.Event
	for i := range 5000 {
		id := uint64(i + 1)
		sid := jsonrpc.FormatID(id)
		req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}`, id, i)
		res := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"call %d"}]}}`, id, i)
		events = append(events,
			runtime.RequestStarted{EventHeader: hdr("demo", i), ID: id, Method: "tools/call", Tool: "echo", Round: 1},
			runtime.TrafficFrame{EventHeader: hdr("demo", i), Frame: jsonrpc.Frame{Dir: jsonrpc.Out, Kind: jsonrpc.KindRequest, Method: "tools/call", ID: sid, Size: len(req), Raw: req}},
			runtime.TrafficFrame{EventHeader: hdr("demo", i), Frame: jsonrpc.Frame{Dir: jsonrpc.In, Kind: jsonrpc.KindResult, Method: "tools/call", ID: sid, Size: len(res), Raw: res}},
			runtime.RequestFinished{EventHeader: hdr("demo", i), ID: id, Method: "tools/call", Tool: "echo", Duration: 1000, Round: 1})
	}
	_, raw := recordEvents(b, nil, events...)
	rec, err := Read(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	if n := len(rec.CallsAt(len(rec.Entries) - 1)); n != 5000 {
		b.Fatalf("%d calls rebuilt", n)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(bytes.NewReader(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("index-calls", func(b *testing.B) {
		for b.Loop() {
			rec.indexCalls()
		}
	})
}
