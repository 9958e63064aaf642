package suite

import (
	"context"
	"encoding/json"
	"testing"

	"mcpdeck/runtime"
)

// The cost of a call step over the runtime's own call, on one connection
// to the Go SDK peer (stdio): what the runner adds is the document, the
// expectations and the notification bookkeeping.
//
//	go test ./runtime/suite -run '^$' -bench 'CallStep|DirectCall' -benchmem -count 6

func benchRun(b *testing.B) (*run, func()) {
	b.Helper()
	s, err := Parse("bench.mcptest.yaml", []byte(`server: peer
steps:
  - id: echo
    call: echo
    args: {text: hello}
    expect:
      isError: false
      equals: {"$.content[0].text": hello}
      matches: {"$.content[0].type": "^text$"}
      latency: 5s
`))
	if err != nil {
		b.Fatal(err)
	}
	rt, server, closeFn, err := opener(goSDKPeer("stdio"))(context.Background(), s, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	col := collect(rt, server)
	sc := &scope{results: map[string]any{}, failed: map[string]bool{}, lookupEnv: func(string) (string, bool) { return "", false }}
	r := &run{s: s, rt: rt, server: server, col: col, sc: sc, res: &Result{}}
	return r, func() { col.stop(); closeFn() }
}

func BenchmarkCallStep(b *testing.B) {
	r, done := benchRun(b)
	defer done()
	st := &r.s.Steps[0]
	for b.Loop() {
		if sr := r.step(context.Background(), st); sr.Status != Passed {
			b.Fatalf("%+v", sr)
		}
	}
}

func BenchmarkDirectCall(b *testing.B) {
	r, done := benchRun(b)
	defer done()
	for b.Loop() {
		res, err := r.rt.Call(context.Background(), runtime.CallRequest{Server: r.server, Tool: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
		if err != nil || res.Content[0].Text != "hello" {
			b.Fatal(err)
		}
	}
}
