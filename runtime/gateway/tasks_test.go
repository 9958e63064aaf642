package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// modernClient speaks 2026-07-28 over HTTP by hand: one POST per request,
// the headers and _meta the revision asks for, and the tasks extension
// declared.
type modernClient struct {
	t    *testing.T
	url  string
	name string
	id   atomic.Int64
	caps map[string]any // the capabilities declared; nil: elicitation and the tasks extension
	meta map[string]any // keys of the client's own in every request's _meta, beside the envelope
}

// do sends method with params and returns the result or the error object.
func (m *modernClient) do(method string, params map[string]any) (result, rpcErr map[string]any) {
	m.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	caps := m.caps
	if caps == nil {
		caps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}
	}
	meta := map[string]any{
		mcp.MetaProtocolVersion:    "2026-07-28",
		mcp.MetaClientInfo:         map[string]any{"name": m.name, "version": "1"},
		mcp.MetaClientCapabilities: caps,
	}
	for k, v := range m.meta {
		meta[k] = v
	}
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id.Add(1), "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, m.url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		m.t.Fatalf("%s: HTTP %d, not JSON-RPC: %s", method, resp.StatusCode, raw)
	}
	return msg.Result, msg.Error
}

// poll asks tasks/get until the task's status satisfies ok.
func (m *modernClient) poll(id string, ok func(status string) bool) map[string]any {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(taskPollMs * time.Millisecond / 5)
	defer tick.Stop()
	for {
		res, e := m.do(mcp.MethodTasksGet, map[string]any{"taskId": id})
		if e != nil {
			m.t.Fatalf("tasks/get %s: %v", id, e)
		}
		if s, _ := res["status"].(string); ok(s) {
			return res
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("task %s: still %v after 30s", id, res)
		}
		<-tick.C // polling is the protocol here: the client asks again
	}
}

func textIn(result any) string {
	r, _ := result.(map[string]any)
	content, _ := r["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestTasksExtension serves the tasks extension to a 2026-07-28 client
// that declares it: server/discover says so; a quick call is answered as
// it is; a long one becomes a task that tasks/get follows to its result; a
// server's question makes the task input_required and tasks/update
// answers it; tasks/cancel stops a task and tells the server; another
// client cannot see the task.
func TestTasksExtension(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{TaskAfter: 300 * time.Millisecond})
	m := &modernClient{t: t, url: serveHTTP(t, g), name: "tasker"}

	res, _ := m.do(mcp.MethodDiscover, nil)
	if caps, _ := res["capabilities"].(map[string]any); caps == nil || caps["extensions"].(map[string]any)[mcp.ExtensionTasks] == nil {
		t.Fatalf("discover does not offer the tasks extension: %v", res)
	}
	res, e := m.do("tools/call", map[string]any{"name": "peer__echo", "arguments": map[string]any{"text": "quick"}})
	if e != nil || res["resultType"] != "complete" || textIn(res) != "quick" {
		t.Fatalf("a quick call: %v %v", res, e)
	}

	// A long call: a task, then its result.
	res, e = m.do("tools/call", map[string]any{"name": "peer__slow", "arguments": map[string]any{"seconds": 1}})
	if e != nil || res["resultType"] != "task" || res["status"] != "working" || res["taskId"] == "" || res["pollIntervalMs"] == nil || res["ttlMs"] == nil {
		t.Fatalf("a long call: %v %v", res, e)
	}
	done := m.poll(res["taskId"].(string), func(s string) bool { return s == "completed" })
	if textIn(done["result"]) != "slept 1s" {
		t.Errorf("the task's result: %v", done)
	}

	// A question: input_required with the elicitation, answered by update.
	res, e = m.do("tools/call", map[string]any{"name": "peer__ask", "arguments": map[string]any{}})
	if e != nil || res["resultType"] != "task" {
		t.Fatalf("a call that asks: %v %v", res, e)
	}
	id := res["taskId"].(string)
	waiting := m.poll(id, func(s string) bool { return s == "input_required" })
	reqs, _ := waiting["inputRequests"].(map[string]any)
	var key string
	for k, v := range reqs {
		if r, _ := v.(map[string]any); r["method"] == "elicitation/create" {
			key = k
		}
	}
	if key == "" {
		t.Fatalf("no elicitation among the input requests: %v", waiting)
	}
	if _, e := m.do(mcp.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "octocat"}}}}); e != nil {
		t.Fatalf("tasks/update: %v", e)
	}
	done = m.poll(id, func(s string) bool { return s == "completed" })
	if textIn(done["result"]) != "Hello, octocat!" {
		t.Errorf("the answered task's result: %v", done)
	}

	// Cancel: the task is cancelled and the server told.
	stderr, stop := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 12})
	defer stop()
	res, _ = m.do("tools/call", map[string]any{"name": "peer__slow", "arguments": map[string]any{"seconds": 30}})
	id, _ = res["taskId"].(string)
	if id == "" {
		t.Fatalf("a 30 s call: %v", res)
	}
	other := &modernClient{t: t, url: m.url, name: "someone-else"}
	if _, e := other.do(mcp.MethodTasksCancel, map[string]any{"taskId": id}); e == nil || !strings.Contains(e["message"].(string), "unknown task") {
		t.Fatalf("another client cancels the task: %v", e)
	}
	if _, e := m.do(mcp.MethodTasksCancel, map[string]any{"taskId": id}); e != nil {
		t.Fatalf("tasks/cancel: %v", e)
	}
	m.poll(id, func(s string) bool { return s == "cancelled" })
	waitFor(t, "the server told of the cancellation", stderr, func(e runtime.Event) bool {
		l, ok := e.(runtime.StderrLine)
		return ok && l.Server == "peer" && strings.Contains(l.Line, "cancelled slow")
	})
	if _, e := m.do(mcp.MethodTasksGet, map[string]any{"taskId": "task-nope"}); e == nil || e["code"].(float64) != -32602 {
		t.Errorf("an unknown task: %v", e)
	}
}

// TestTaskStatusCarriesProgress: once a call became a task its progress
// notifications had no request to go to, and a client polling tasks/get
// saw "working" and nothing more until the end (mcpdeck call through the
// gateway printed progress for a second, then only "working"; found by
// qa3). The server's latest progress is the working task's status message.
func TestTaskStatusCarriesProgress(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	g := newGateway(t, rt, Options{TaskAfter: 300 * time.Millisecond})
	m := &modernClient{t: t, url: serveHTTP(t, g), name: "tasker"}
	res, e := m.do("tools/call", map[string]any{"name": "peer__slow", "arguments": map[string]any{"seconds": 3}})
	if e != nil || res["resultType"] != "task" {
		t.Fatalf("a long call: %v %v", res, e)
	}
	var msg string
	m.poll(res["taskId"].(string), func(s string) bool {
		if s != "working" {
			return true
		}
		got, _ := m.do(mcp.MethodTasksGet, map[string]any{"taskId": res["taskId"]})
		msg, _ = got["statusMessage"].(string)
		return strings.Contains(msg, " of ")
	})
	if !strings.Contains(msg, "/") || !strings.Contains(msg, "step ") {
		t.Errorf("the working task's status message %q does not carry the server's progress (N/TOTAL step N of TOTAL)", msg)
	}
}
