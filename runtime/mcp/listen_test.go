package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
)

func TestListenParams(t *testing.T) {
	raw, _ := json.Marshal(ListenParams(SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, Envelope{Version: LatestModern}))
	got := decodeMap(t, raw)
	want := decodeMap(t, []byte(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("listen params = %s", raw)
	}
}

func TestSubscriptionID(t *testing.T) {
	cases := map[string]struct {
		id string
		ok bool
	}{
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":6}}`:              {"6", true},
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}`:     {`"listen-1"`, true},
		`{"uri":"x","_meta":{"io.modelcontextprotocol/subscriptionId": 12 }}`: {"12", true},
		`{"progressToken":1,"progress":2}`:                                    {"", false},
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":null}}`:           {"", false},
		``: {"", false},
	}
	for params, want := range cases {
		id, ok := SubscriptionID(json.RawMessage(params))
		if id != want.id || ok != want.ok {
			t.Errorf("SubscriptionID(%s) = %q %v, want %q %v", params, id, ok, want.id, want.ok)
		}
	}
	if IDKey(6) != "6" {
		t.Error("IDKey")
	}
	if id, ok := CancelledRequest(json.RawMessage(`{"requestId": 6, "reason":"shutdown"}`)); !ok || id != "6" {
		t.Errorf("CancelledRequest = %q %v", id, ok)
	}
}

func TestRouterDemultiplexes(t *testing.T) {
	var r Router
	var got6, got7 []string
	s6 := r.Open("6", func(n jsonrpc.Notification) { got6 = append(got6, n.Method) })
	r.Open("7", func(n jsonrpc.Notification) { got7 = append(got7, n.Method) })
	note := func(method, params string) jsonrpc.Notification {
		return jsonrpc.Notification{Method: method, Params: json.RawMessage(params)}
	}
	// Interleaved as the TypeScript SDK's stdio router does.
	if !r.Route(note(NotificationAcknowledged, `{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":6}}`)) {
		t.Fatal("acknowledgement not routed")
	}
	select {
	case <-s6.Acked:
	case <-time.After(time.Second):
		t.Fatal("Acked not closed")
	}
	if !s6.Granted.ToolsListChanged || s6.Granted.PromptsListChanged {
		t.Errorf("granted %+v", s6.Granted)
	}
	r.Route(note("notifications/tools/list_changed", `{"_meta":{"io.modelcontextprotocol/subscriptionId":6}}`))
	r.Route(note("notifications/resources/updated", `{"uri":"file:///a","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`))
	if r.Route(note("notifications/progress", `{"progressToken":1,"progress":1}`)) {
		t.Error("progress (no subscriptionId) was taken by the router")
	}
	r.Close("7")
	if !r.Route(note("notifications/resources/updated", `{"uri":"file:///a","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)) {
		t.Error("a notification of a closed subscription was not swallowed")
	}
	if !slices.Equal(got6, []string{"notifications/tools/list_changed"}) || !slices.Equal(got7, []string{"notifications/resources/updated"}) {
		t.Errorf("subscription 6 got %v, 7 got %v", got6, got7)
	}
}

func TestCacheHint(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for result, want := range map[string]CacheHint{
		`{"ttlMs":300000,"cacheScope":"public"}`: {TTL: 5 * time.Minute, Scope: Public, Received: at},
		`{"ttlMs":0,"cacheScope":"private"}`:     {TTL: 0, Scope: Private, Received: at},
		`{"tools":[]}`:                           {TTL: 0, Scope: Private, Received: at},
		`{"ttlMs":-5,"cacheScope":"shared"}`:     {TTL: 0, Scope: Private, Received: at},
		`{"ttlMs":1e12}`:                         {TTL: 24 * time.Hour, Scope: Private, Received: at},
	} {
		if got := ParseCacheHint(json.RawMessage(result), at); got != want {
			t.Errorf("ParseCacheHint(%s) = %+v, want %+v", result, got, want)
		}
	}
	h := ParseCacheHint(json.RawMessage(`{"ttlMs":1000}`), at)
	if !h.Fresh(at.Add(999*time.Millisecond)) || h.Fresh(at.Add(time.Second)) || !h.Expires().Equal(at.Add(time.Second)) {
		t.Errorf("freshness of %+v", h)
	}
}

func TestTasks(t *testing.T) {
	tk, err := DecodeTask(json.RawMessage(`{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-12-01T00:00:00Z","lastUpdatedAt":"2026-12-01T00:00:00Z","ttlMs":null,"pollIntervalMs":250}`))
	if err != nil || tk.TaskID != "t1" || tk.Status.Terminal() || tk.TTLMs != nil || tk.PollInterval() != 250*time.Millisecond {
		t.Fatalf("DecodeTask = %+v, %v", tk, err)
	}
	done, err := DecodeTask(json.RawMessage(`{"taskId":"t1","status":"completed","ttlMs":60000,"pollIntervalMs":1,"result":{"content":[]}}`))
	if err != nil || !done.Status.Terminal() || string(done.Result) != `{"content":[]}` || done.PollInterval() != 100*time.Millisecond {
		t.Errorf("completed task = %+v, %v", done, err)
	}
	ir, err := DecodeTask(json.RawMessage(`{"taskId":"t1","status":"input_required","ttlMs":null,"inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"Go?"}}}}`))
	if err != nil || ir.InputRequests["ok"].Method != MethodElicit || ir.PollInterval() != DefaultTaskPollInterval {
		t.Errorf("input_required task = %+v, %v", ir, err)
	}
	for _, bad := range []string{`{"status":"working"}`, `{"taskId":"t","status":"paused"}`} {
		if _, err := DecodeTask(json.RawMessage(bad)); err == nil {
			t.Errorf("DecodeTask(%s) accepted", bad)
		}
	}
	env := Envelope{Version: LatestModern}
	raw, _ := json.Marshal(TaskUpdateParams("t1", map[string]json.RawMessage{"ok": ElicitAccept(map[string]any{"go": true})}, env))
	want := decodeMap(t, []byte(`{"taskId":"t1","inputResponses":{"ok":{"action":"accept","content":{"go":true}}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`))
	if got := decodeMap(t, raw); !reflect.DeepEqual(got, want) {
		t.Errorf("tasks/update params = %s", raw)
	}
	raw, _ = json.Marshal(TaskIDParams("t1", env))
	if m := decodeMap(t, raw); m["taskId"] != "t1" || m["_meta"] == nil {
		t.Errorf("tasks/get params = %s", raw)
	}
}
