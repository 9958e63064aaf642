//go:build unix

package jsonrpctest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// httpPeer is a modern peer over Streamable HTTP.
type httpPeer struct {
	name string
	url  func(t *testing.T) string
	// A request without _meta: the spec's status and code.
	missingMetaStatus, missingMetaCode int
	// The status of a POST whose Mcp-Method disagrees with the body.
	mismatchStatus int
}

func httpPeers() []httpPeer {
	return []httpPeer{
		{"ts-dual", func(t *testing.T) string { return jsonrpctest.TSServerHTTP(t, jsonrpctest.DualEra) }, 400, -32602, 400},
		{"ts-modern", func(t *testing.T) string { return jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra) }, 400, -32602, 400},
		{"gosdk", func(t *testing.T) string { return jsonrpctest.GoSDKHTTP(t) }, 400, -32602, 400},
	}
}

// post sends one hand-written frame with the 2026-07-28 headers (those in
// hdr override, "" deletes) and returns the status and the JSON-RPC
// messages of the answer (a JSON body or every SSE event).
func post(t *testing.T, url, frame string, hdr map[string]string) (int, []wire) {
	t.Helper()
	var f struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(frame), &f)
	req, _ := http.NewRequestWithContext(ctxTimeout(t), http.MethodPost, url, strings.NewReader(frame))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", f.Params.Meta.Version)
	req.Header.Set("Mcp-Method", f.Method)
	if f.Params.Name != "" {
		req.Header.Set("Mcp-Name", f.Params.Name)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", f.Method, err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAnswer(t, resp)
}

func readAnswer(t *testing.T, resp *http.Response) []wire {
	t.Helper()
	var out []wire
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m wire
				if json.Unmarshal([]byte(d), &m) == nil {
					out = append(out, m)
				}
			}
		}
		return out
	}
	body, _ := io.ReadAll(resp.Body)
	var m wire
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("answer %d %q is not JSON-RPC: %v", resp.StatusCode, body, err)
		}
		out = append(out, m)
	}
	return out
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

func last(t *testing.T, ws []wire) wire {
	t.Helper()
	if len(ws) == 0 {
		t.Fatal("no JSON-RPC message in the answer")
	}
	return ws[len(ws)-1]
}

func TestPeerHTTPTranscripts(t *testing.T) {
	for _, p := range httpPeers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			url := p.url(t)

			status, ws := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, nil)
			if m := last(t, ws); status != 200 || m.Error != nil || !bytes.Contains(m.Result, []byte(`"supportedVersions":["2026-07-28"`)) {
				t.Fatalf("discover: %d %s %+v", status, truncate(m.Result), m.Error)
			}
			status, ws = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta("2099-01-01", `{}`)+`}}`, nil)
			if m := last(t, ws); status != 400 || m.Error == nil || m.Error.Code != -32022 {
				t.Errorf("discover 2099-01-01: %d %+v; want 400 -32022", status, m.Error)
			}
			status, ws = post(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`, map[string]string{"MCP-Protocol-Version": "2026-07-28"})
			if m := last(t, ws); status != p.missingMetaStatus || m.Error == nil || m.Error.Code != p.missingMetaCode {
				t.Errorf("no _meta: %d %+v; want %d %d", status, m.Error, p.missingMetaStatus, p.missingMetaCode)
			}
			status, ws = post(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{`+modernMeta+`}}`, map[string]string{"Mcp-Method": "prompts/list"})
			if m := last(t, ws); status != p.mismatchStatus || m.Error == nil || m.Error.Code != -32020 {
				t.Errorf("Mcp-Method mismatch: %d %+v; want %d -32020", status, m.Error, p.mismatchStatus)
			}
			status, ws = post(t, url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},`+modernMeta+`}}`, map[string]string{"Mcp-Name": ""})
			if m := last(t, ws); status != 400 || m.Error == nil || m.Error.Code != -32020 {
				t.Errorf("no Mcp-Name: %d %+v; want 400 -32020", status, m.Error)
			}
			status, ws = post(t, url, `{"jsonrpc":"2.0","id":6,"method":"ping","params":{`+modernMeta+`}}`, nil)
			if m := last(t, ws); status != 404 || m.Error == nil || m.Error.Code != -32601 {
				t.Errorf("ping: %d %+v; want 404 -32601", status, m.Error)
			}
			for _, method := range []string{http.MethodGet, http.MethodDelete} {
				req, _ := http.NewRequestWithContext(ctxTimeout(t), method, url, nil)
				req.Header.Set("Accept", "text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 405 {
					t.Errorf("%s: %d, want 405", method, resp.StatusCode)
				}
			}

			// MRTR over HTTP, the retry on a new POST with a new id.
			_, ws = post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{},`+modernMeta+`}}`, nil)
			var ir struct {
				ResultType   string          `json:"resultType"`
				RequestState json.RawMessage `json:"requestState"`
			}
			if m := last(t, ws); json.Unmarshal(m.Result, &ir) != nil || ir.ResultType != "input_required" {
				t.Fatalf("ask: %s %+v", truncate(m.Result), m.Error)
			}
			_, ws = post(t, url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{"who":{"action":"accept","content":{"name":"octocat"}}},"requestState":`+string(ir.RequestState)+`,`+modernMeta+`}}`, nil)
			if text, _ := toolText(t, last(t, ws)); text != "Hello, octocat!" {
				t.Errorf("ask retry = %q", text)
			}

			// listen: its own SSE stream, acknowledged first; a list change
			// made by another request arrives on it with the subscriptionId.
			listen, _ := http.NewRequestWithContext(ctxTimeout(t), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`))
			listen.Header.Set("Content-Type", "application/json")
			listen.Header.Set("Accept", "application/json, text/event-stream")
			listen.Header.Set("MCP-Protocol-Version", "2026-07-28")
			listen.Header.Set("Mcp-Method", "subscriptions/listen")
			resp, err := http.DefaultClient.Do(listen)
			if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("listen: %v %v", resp, err)
			}
			events := make(chan wire, 8)
			go func() {
				defer close(events)
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
						var m wire
						if json.Unmarshal([]byte(d), &m) == nil {
							events <- m
						}
					}
				}
			}()
			if ack := <-events; ack.Method != "notifications/subscriptions/acknowledged" || subID(ack) != "9" {
				t.Fatalf("listen's first event: %s %s", ack.Method, ack.Params)
			}
			post(t, url, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"add_tool","arguments":{"name":"extra"},`+modernMeta+`}}`, nil)
			if n := <-events; n.Method != "notifications/tools/list_changed" || subID(n) != "9" {
				t.Errorf("listen's next event: %s %s", n.Method, n.Params)
			}
			resp.Body.Close() // the client's cancellation of the subscription
			for range events {
			}
		})
	}
}
