package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
)

// discoverTS is what the TypeScript SDK v2 peer answers (recorded by the
// wire transcript tests in jsonrpc/jsonrpctest).
const discoverTS = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"logging":{}},"instructions":"A test peer.","resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ts2-peer-dual","version":"0.1.0"}}}`

func TestDecodeDiscover(t *testing.T) {
	now := time.Now()
	d, err := DecodeDiscover(json.RawMessage(discoverTS), now)
	if err != nil {
		t.Fatal(err)
	}
	if d.SupportedVersions[0] != "2026-07-28" || d.Instructions != "A test peer." || d.ServerInfo == nil || d.ServerInfo.Name != "ts2-peer-dual" {
		t.Errorf("decoded %+v", d)
	}
	if d.Capabilities.Tools == nil || !d.Capabilities.Tools.ListChanged || d.Capabilities.Logging == nil || d.Capabilities.Prompts != nil {
		t.Errorf("capabilities %+v", d.Capabilities)
	}
	if f, ok := d.Capabilities.Filter(); !ok || !f.ToolsListChanged || f.PromptsListChanged {
		t.Errorf("Filter() = %+v %v", f, ok)
	}
	if d.Cache.Scope != Private || d.Cache.TTL != 0 || d.Cache.Fresh(now) {
		t.Errorf("cache %+v", d.Cache)
	}
	for _, bad := range []string{`{}`, `{"supportedVersions":[],"capabilities":{}}`, `{"supportedVersions":["2026-07-28"]}`, `{"supportedVersions":["2026-07-28"],"capabilities":[]}`} {
		if _, err := DecodeDiscover(json.RawMessage(bad), now); !errors.Is(err, ErrBadResult) {
			t.Errorf("DecodeDiscover(%s) error = %v", bad, err)
		}
	}
}

func TestDecide(t *testing.T) {
	auto := Preference{Mode: Auto}
	modernOnly := Preference{Mode: ModernOnly}
	now := time.Now()
	timeout := &jsonrpc.CancelledError{ID: 1, Method: MethodDiscover, Reason: "timeout", Timeout: true, Cause: context.DeadlineExceeded}
	cases := []struct {
		name    string
		pref    Preference
		result  string
		err     error
		era     Era
		version string
		retry   bool
		restart bool
		wantErr error
	}{
		{"discover result", auto, discoverTS, nil, Modern, "2026-07-28", false, false, nil},
		{"-32022 with a mutual version", auto, "", &jsonrpc.Error{Code: -32022, Message: "x", Data: []byte(`{"supported":["2026-07-28"],"requested":"2099-01-01"}`)}, Modern, "2026-07-28", true, false, nil},
		{"-32022 with no common version", auto, "", &jsonrpc.Error{Code: -32022, Message: "x", Data: []byte(`{"supported":["2099-01-01"],"requested":"2026-07-28"}`)}, Modern, "", false, false, ErrNoMutualVersion},
		{"-32022 listing only legacy", auto, "", &jsonrpc.Error{Code: -32022, Message: "x", Data: []byte(`{"supported":["2025-06-18"],"requested":"2026-07-28"}`)}, Legacy, "", false, false, nil},
		{"-32601", auto, "", &jsonrpc.Error{Code: -32601, Message: "Method not found"}, Legacy, "", false, false, nil},
		{"-32602", auto, "", &jsonrpc.Error{Code: -32602, Message: "Invalid params"}, Legacy, "", false, false, nil},
		{"-32000 server not initialized", auto, "", &jsonrpc.Error{Code: -32000, Message: "Server not initialized"}, Legacy, "", false, false, nil},
		{"-32022 with malformed data", auto, "", &jsonrpc.Error{Code: -32022, Message: "x"}, Legacy, "", false, false, nil},
		{"silence", auto, "", timeout, Legacy, "", false, false, nil},
		{"exit on probe", auto, "", &jsonrpc.ClosedError{Method: MethodDiscover, Cause: errors.New("server process exited with status 1")}, Legacy, "", false, true, nil},
		{"a lenient legacy server's empty result", auto, `{}`, nil, Legacy, "", false, false, nil},
		{"discover lists no mutual modern version", auto, `{"supportedVersions":["2099-01-01"],"capabilities":{}}`, nil, Legacy, "", false, false, nil},
		{"discover lists no mutual version, modern only", modernOnly, `{"supportedVersions":["2099-01-01"],"capabilities":{}}`, nil, Modern, "", false, false, ErrNoMutualVersion},
		{"-32021 is a modern error", auto, "", &jsonrpc.Error{Code: -32021, Message: "x", Data: []byte(`{"requiredCapabilities":{"roots":{}}}`)}, Modern, "", false, false, ErrMissingCapability},
		{"caller cancelled", auto, "", &jsonrpc.CancelledError{ID: 1, Reason: "quit", Cause: context.Canceled}, Unknown, "", false, false, jsonrpc.ErrCancelled},
	}
	for _, c := range cases {
		v := Decide(c.pref, json.RawMessage(c.result), c.err, now)
		if v.Era != c.era || v.Version != c.version || v.Retry != c.retry || v.Restart != c.restart || !errors.Is(v.Err, c.wantErr) || (c.wantErr == nil) != (v.Err == nil) {
			t.Errorf("%s: Decide = %+v; want era %v version %q retry %v restart %v err %v", c.name, v, c.era, c.version, c.retry, c.restart, c.wantErr)
		}
		if v.Reason == "" && v.Err == nil {
			t.Errorf("%s: no reason given", c.name)
		}
	}
	// The decision is about the error, not its wrapping.
	wrapped := fmt.Errorf("probing: %w", &jsonrpc.Error{Code: -32601, Message: "nope"})
	if v := Decide(auto, nil, wrapped, now); v.Era != Legacy {
		t.Errorf("wrapped -32601: %+v", v)
	}
}
