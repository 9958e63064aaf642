//go:build unix

package jsonrpctest_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestNullIDError(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.NullIDError)
	f.initialize()
	f.request(3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	m := f.next()
	if string(m.ID) != "null" || m.Error == nil || m.Error.Code != -32600 {
		t.Fatalf("got id %s error %+v, want an error with a null id", m.ID, m.Error)
	}
}

func TestDeepResponse(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.DeepResponse, jsonrpctest.WithDepth(20000))
	f.initialize()
	f.request(3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	l := f.line()
	deep := bytes.Repeat([]byte("["), 20000)
	if !bytes.HasPrefix(l, []byte(`{"jsonrpc":"2.0","id":3,`)) || !bytes.Contains(l, deep) || bytes.Contains(l, append(deep, '[')) {
		t.Fatalf("answer starts %q, want a response to 3 nested 20000 deep", truncate(l))
	}
	var v any
	if err := json.Unmarshal(l, &v); err == nil || !strings.Contains(err.Error(), "max depth") {
		t.Fatalf("encoding/json decoded it (%v); the mode must exceed its depth limit", err)
	}
}

func TestDeepSchema(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.DeepSchema, jsonrpctest.WithDepth(50))
	f.initialize()
	f.request(2, "tools/list", `{"cursor":"page2"}`)
	m, _ := f.response("2")
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	last := r.Tools[len(r.Tools)-1]
	if last.Name != "deep" || bytes.Count(last.InputSchema, []byte(`"properties"`)) != 50 {
		t.Fatalf("last tool %s with schema %s, want deep nested 50 levels", last.Name, truncate(last.InputSchema))
	}
}

func TestBadUTF8(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.BadUTF8)
	f.initialize()
	l := f.line()
	if utf8.Valid(l) || !bytes.Contains(l, []byte("notifications/message")) {
		t.Fatalf("line %q: want a notifications/message with invalid UTF-8", l)
	}
}
