package jsonrpc

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestScanMembers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in                          string
		ok                          bool
		id, method, result, errSpan string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a \"quoted\" } ]"}]}}`, true, `7`, ``, `{"content":[{"type":"text","text":"a \"quoted\" } ]"}]}`, ``},
		{` { "id" : 12 , "error" : {"code":-32601,"message":"nope","data":{"x":[1,2]}} } `, true, `12`, ``, ``, `{"code":-32601,"message":"nope","data":{"x":[1,2]}}`},
		{`{"result":null,"id":3,"jsonrpc":"2.0"}`, true, `3`, ``, `null`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"result":1}}`, true, ``, `"notifications/progress"`, ``, ``},
		{`{"id":"abc","result":[]}`, true, `"abc"`, ``, `[]`, ``},
		{`{}`, true, ``, ``, ``, ``},
		{`{"id":1,"result":{}`, false, ``, ``, ``, ``},           // unterminated
		{`{"id":1,"result":{}} trailing`, false, ``, ``, ``, ``}, // more after the object
		{`{"i\u0064":1,"result":{}}`, false, ``, ``, ``, ``},     // an escaped key
		{`{"id":1,"id":2,"result":{}}`, false, ``, ``, ``, ``},   // a duplicate
		{`[{"id":1,"result":{}}]`, false, ``, ``, ``, ``},        // a batch
		{`{"id":1 "result":{}}`, false, ``, ``, ``, ``},          // no comma
	} {
		m, ok := scanMembers([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("%s: ok=%v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if string(m.ID) != tc.id || string(m.Method) != tc.method || string(m.Result) != tc.result || string(m.Error) != tc.errSpan {
			t.Errorf("%s: id %q method %q result %q error %q", tc.in, m.ID, m.Method, m.Result, m.Error)
		}
	}
}

// FuzzScanMembers: where the one-pass scan reads a valid JSON object, it
// finds the members the strict decoder finds.
func FuzzScanMembers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"x","params":{"id":[1,{"result":"}"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, ok := scanMembers(b)
		var d map[string]json.RawMessage
		if !ok || json.Unmarshal(b, &d) != nil {
			return
		}
		for key, got := range map[string][]byte{"id": m.ID, "method": m.Method, "params": m.Params, "result": m.Result, "error": m.Error} {
			want, present := d[key]
			if present != (got != nil) {
				t.Fatalf("%s: member %s present=%v, scan found %q", b, key, present, got)
			}
			if present {
				var a, b2 any
				if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b2) != nil {
					t.Fatalf("%s: member %s scanned as %q, decoded as %q", b, key, got, want)
				}
			}
		}
	})
}

// Members reads an object's members in order whichever way it reads them:
// the one-pass scan, or the decoder where the scan cannot tell.
func TestMembers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string // key=value, in order
	}{
		{`{"b":1,"a":{"x":[1,"}"]},"c":"s"}`, []string{`b=1`, `a={"x":[1,"}"]}`, `c="s"`}},
		{` { "k" : true } `, []string{`k=true`}},
		{`{}`, nil},
		{`{"a\u0062":1,"c":2}`, []string{`ab=1`, `c=2`}},           // an escaped key: decoded
		{"{\"a\xffb\":1}", []string{"a\ufffdb=1"}},                 // a key that is not UTF-8: as encoding/json reads it
		{`{"a":1,"a":2}`, []string{`a=1`, `a=2`}},                  // a duplicate: both, as written
		{`{"a":1,"b":`, []string{`a=1`}},                           // broken off: what came before
		{`{"a":1,"b":[1,2]} trailing`, []string{`a=1`, `b=[1,2]`}}, // more after the object
		{`[{"a":1}]`, nil},
		{`"a"`, nil},
	} {
		var got []string
		for _, m := range Members([]byte(tc.in)) {
			got = append(got, m.Key+"="+string(m.Value))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Members(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
