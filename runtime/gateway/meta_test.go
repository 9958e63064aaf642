package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// envMirror makes the test binary a bare JSON-RPC server on stdio, in the
// era the variable names ("legacy" or "modern"), whose every answer to a
// forwarded request (tools/call, prompts/get, resources/read,
// completion/complete) carries the _meta it received as "received", a
// _meta of its own ("com.example/from-server") and a member outside the
// specification ("extra"). Its tool "ask" asks a question first: an
// elicitation/create request (legacy) or an input_required answer
// (modern). In the legacy era, "link" answers -32042 (URL elicitation
// required) with the elicitationId link-1, and "linked" says that flow
// finished (notifications/elicitation/complete) before it answers.
const envMirror = "MCPDECK_GATEWAY_TEST_MIRROR"

func maybeServeMirror() {
	era := os.Getenv(envMirror)
	if era == "" {
		return
	}
	modern := era == "modern"
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	write := func(id json.RawMessage, result map[string]any) {
		if _, set := result["resultType"]; modern && !set {
			result["resultType"] = "complete"
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	fail := func(id json.RawMessage, code int, msg string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	answer := func(method string, meta json.RawMessage) map[string]any {
		if meta == nil {
			meta = json.RawMessage(`{}`)
		}
		res := map[string]any{"received": meta, "extra": map[string]string{"server": era},
			"_meta": map[string]string{"com.example/from-server": method}}
		switch method {
		case "tools/call":
			res["content"] = []map[string]string{{"type": "text", "text": "ok"}}
		case "prompts/get":
			res["messages"] = []map[string]any{{"role": "user", "content": map[string]string{"type": "text", "text": "ok"}}}
		case "resources/read":
			res["contents"] = []map[string]string{{"uri": "mirror://r", "text": "ok"}}
		case "completion/complete":
			res["completion"] = map[string]any{"values": []string{"ok"}}
		}
		return res
	}
	var asking json.RawMessage // the id of the tools/call waiting on its question (legacy)
	var askingMeta json.RawMessage
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Name            string                     `json:"name"`
				Meta            json.RawMessage            `json:"_meta"`
				InputResponses  map[string]json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		if m.Method == "" { // the client's answer to our question
			if asking != nil {
				write(asking, answer("tools/call", askingMeta))
				asking = nil
			}
			continue
		}
		caps := map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}, "completions": map[string]any{}}
		switch {
		case m.Method == "server/discover" && modern:
			write(m.ID, map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": caps, "ttlMs": 0, "cacheScope": "private",
				"_meta": map[string]any{mcp.MetaServerInfo: map[string]string{"name": "mirror", "version": "1"}}})
		case m.Method == "initialize" && !modern:
			write(m.ID, map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": caps, "serverInfo": map[string]string{"name": "mirror", "version": "1"}})
		case m.Method == "ping" && !modern:
			write(m.ID, map[string]any{})
		case m.Method == "tools/list":
			write(m.ID, map[string]any{"tools": []map[string]any{{"name": "mirror", "inputSchema": map[string]string{"type": "object"}},
				{"name": "ask", "inputSchema": map[string]string{"type": "object"}}, {"name": "link", "inputSchema": map[string]string{"type": "object"}},
				{"name": "linked", "inputSchema": map[string]string{"type": "object"}}}})
		case m.Method == "prompts/list":
			write(m.ID, map[string]any{"prompts": []map[string]any{{"name": "p", "arguments": []map[string]string{{"name": "a"}}}}})
		case m.Method == "resources/list":
			write(m.ID, map[string]any{"resources": []map[string]string{{"uri": "mirror://" + era, "name": "r"}}})
		case m.Method == "resources/templates/list":
			write(m.ID, map[string]any{"resourceTemplates": []any{}})
		case m.Method == "tools/call" && m.Params.Name == "ask" && modern && m.Params.InputResponses == nil:
			write(m.ID, map[string]any{"resultType": "input_required", "requestState": "mirror-state",
				"inputRequests": map[string]any{"q": map[string]any{"method": "elicitation/create",
					"params": map[string]any{"mode": "form", "message": "Go on?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}}})
		case m.Method == "tools/call" && m.Params.Name == "link" && !modern:
			// URL elicitation required, under an id every mirror uses.
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32042,"message":"link your account first","data":{"elicitations":[{"mode":"url","elicitationId":"link-1","url":"https://example.com/` + era + `","message":"Link."}]}}}` + "\n")
			out.Flush()
		case m.Method == "tools/call" && m.Params.Name == "linked" && !modern:
			// The out-of-band flow finished.
			out.WriteString(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"link-1"}}` + "\n")
			write(m.ID, answer("tools/call", m.Params.Meta))
		case m.Method == "tools/call" && m.Params.Name == "ask" && !modern:
			asking, askingMeta = m.ID, m.Params.Meta
			out.WriteString(`{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"mode":"form","message":"Go on?","requestedSchema":{"type":"object","properties":{}}}}` + "\n")
			out.Flush()
		case m.Method == "tools/call", m.Method == "prompts/get", m.Method == "resources/read", m.Method == "completion/complete":
			write(m.ID, answer(m.Method, m.Params.Meta))
		default:
			fail(m.ID, -32601, "method not found: "+m.Method)
		}
	}
	os.Exit(0)
}

// mirrorServer is a mirror (envMirror) in era.
func mirrorServer(name, era string) config.Server {
	exe, _ := os.Executable()
	return config.Server{Name: name, Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"}, Protocol: era,
		Env: map[string]string{envMirror: era, "GORACE": "atexit_sleep_ms=0"}, Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
}

// clientMeta is the _meta a test client sends beside its envelope: one
// key of its own for the server, one the protocol reserves (which the
// gateway must not pass on), and its progress token (which the gateway
// maps to its own).
func clientMeta(who string) map[string]any {
	return map[string]any{"com.example/client": who, "io.modelcontextprotocol/private": "not forwarded", "progressToken": "client-token"}
}

// checkMirrored checks a forwarded request's answer from a mirror: the
// server received the client's own _meta key, and neither the reserved
// key nor the client's progress token; the client received the server's
// _meta key and its own member.
func checkMirrored(t *testing.T, what, who, server string, res map[string]any) {
	t.Helper()
	received, _ := res["received"].(map[string]any)
	if received["com.example/client"] != who {
		t.Errorf("%s: the server received _meta %v, without the client's com.example/client %q; the answer: %v", what, received, who, res)
	}
	if _, leaked := received["io.modelcontextprotocol/private"]; leaked {
		t.Errorf("%s: a reserved key of the client's _meta reached the server: %v", what, received)
	}
	if received["progressToken"] == "client-token" {
		t.Errorf("%s: the client's progress token reached the server unmapped: %v", what, received)
	}
	meta, _ := res["_meta"].(map[string]any)
	if meta["com.example/from-server"] == nil {
		t.Errorf("%s: the server's _meta did not reach the client: %v", what, res)
	}
	if extra, _ := res["extra"].(map[string]any); extra["server"] != server {
		t.Errorf("%s: the server's own member \"extra\" did not reach the client: %v", what, res)
	}
}

// TestGatewayForwardsMetaOnEveryRequest: for every request the gateway
// forwards — tools/call plain, as a job, as a task (either era's), and
// prompts/get, resources/read, completion/complete — the client's own
// _meta keys reach the upstream server (legacy and modern alike), and
// the server's result _meta and members of its own reach the client
// (legacy and modern alike, a task's result included). A task-augmented
// call went upstream without the client's _meta before.
func TestGatewayForwardsMetaOnEveryRequest(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, mirrorServer("old", "legacy"), mirrorServer("new", "modern"))
	g := newGateway(t, rt, Options{})
	servers := map[string]string{"old": "legacy", "new": "modern"}

	// A 2025-11-25 client, which answers the servers' questions.
	conn := legacyConn(t, g, `{"elicitation":{"form":{}}}`, func(context.Context, *jsonrpc.Request) (any, error) {
		return map[string]any{"action": "accept", "content": map[string]any{}}, nil
	})
	ctx := ctxFor(t, 30*time.Second)
	legacy := func(method string, params map[string]any) map[string]any {
		t.Helper()
		params["_meta"] = clientMeta("legacy")
		raw, err := conn.Call(ctx, method, params)
		if err != nil {
			t.Fatalf("legacy %s: %v", method, err)
		}
		var res map[string]any
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("legacy %s: %s", method, raw)
		}
		return res
	}
	// A 2026-07-28 client, with the capabilities caps.
	url := serveHTTP(t, g)
	modern := func(caps map[string]any, method string, params map[string]any) map[string]any {
		t.Helper()
		m := &modernClient{t: t, url: url, name: "modern", caps: caps, meta: clientMeta("modern")}
		res, e := m.do(method, params)
		if e != nil {
			t.Fatalf("modern %s: %v", method, e)
		}
		if res["resultType"] == "task" {
			id, _ := res["taskId"].(string)
			if res["status"] == "input_required" || m.poll(id, func(s string) bool { return s == "input_required" || s == "completed" })["status"] == "input_required" {
				if _, e := m.do(mcp.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"q1": map[string]any{"action": "accept", "content": map[string]any{}}}}); e != nil {
					t.Fatalf("tasks/update: %v", e)
				}
			}
			done := m.poll(id, func(s string) bool { return s == "completed" || s == "failed" })
			res, _ = done["result"].(map[string]any)
		}
		return res
	}
	tasks := map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}, "elicitation": map[string]any{"form": map[string]any{}}}
	for server, era := range servers {
		call := func(tool string) map[string]any {
			return map[string]any{"name": server + "__" + tool, "arguments": map[string]any{}}
		}
		checkMirrored(t, "legacy tools/call to "+server, "legacy", era, legacy("tools/call", call("mirror")))
		checkMirrored(t, "legacy tools/call that asks, to "+server, "legacy", era, legacy("tools/call", call("ask")))
		// A 2025-11-25 task: answered at once, its result by tasks/result.
		p := call("mirror")
		p["task"] = map[string]any{}
		created := legacy("tools/call", p)
		task, _ := created["task"].(map[string]any)
		checkMirrored(t, "legacy task's tasks/result from "+server, "legacy", era, legacy("tasks/result", map[string]any{"taskId": task["taskId"]}))

		checkMirrored(t, "modern tools/call to "+server, "modern", era, modern(map[string]any{}, "tools/call", call("mirror")))
		checkMirrored(t, "modern tools/call as a job to "+server, "modern", era,
			modern(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, "tools/call", call("mirror")))
		checkMirrored(t, "modern tools/call, task-capable, to "+server, "modern", era, modern(tasks, "tools/call", call("mirror")))
		checkMirrored(t, "modern task's tasks/get result from "+server, "modern", era, modern(tasks, "tools/call", call("ask")))

		uri := "mirror://" + era
		complete := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": server + "__p"}, "argument": map[string]any{"name": "a", "value": ""}}
		for method, params := range map[string]func() map[string]any{
			"prompts/get":         func() map[string]any { return map[string]any{"name": server + "__p", "arguments": map[string]any{}} },
			"resources/read":      func() map[string]any { return map[string]any{"uri": uri} },
			"completion/complete": func() map[string]any { return complete },
		} {
			checkMirrored(t, "legacy "+method+" to "+server, "legacy", era, legacy(method, params()))
			checkMirrored(t, "modern "+method+" to "+server, "modern", era, modern(map[string]any{}, method, params()))
		}
	}
}

// A server's -32042 (URL elicitation required) reaches a 2025-11-25
// client with elicitationIds of the gateway's, as an elicitation/create
// does (TestURLElicitationCarriesWhatTheClientsEraHas), and the server's
// notifications/elicitation/complete for it reaches the client under that
// id. Two servers both name theirs link-1: before, the client got link-1
// from both and no completion at all.
func TestURLElicitationRequiredIsMapped(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, mirrorServer("a", "legacy"), mirrorServer("b", "legacy"))
	g := newGateway(t, rt, Options{})
	completed := make(chan string, 4)
	conn := legacyConnWith(t, g, `{"elicitation":{"url":{}}}`, jsonrpc.Options{OnNotification: func(n jsonrpc.Notification) {
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		if n.Method == mcp.NotificationElicitationComplete && json.Unmarshal(n.Params, &p) == nil {
			completed <- p.ElicitationID
		}
	}})
	ctx := ctxFor(t, 30*time.Second)
	given := map[string]string{} // the client's elicitationId → the server
	for _, server := range []string{"a", "b"} {
		_, err := conn.Call(ctx, "tools/call", map[string]any{"name": server + "__link", "arguments": map[string]any{}})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != mcp.CodeURLElicitationRequired {
			t.Fatalf("%s__link: %v, want -32042", server, err)
		}
		var data struct {
			Elicitations []struct {
				ElicitationID string `json:"elicitationId"`
				URL           string `json:"url"`
			} `json:"elicitations"`
		}
		if json.Unmarshal(rpc.Data, &data) != nil || len(data.Elicitations) != 1 || data.Elicitations[0].URL != "https://example.com/legacy" {
			t.Fatalf("%s__link: data %s", server, rpc.Data)
		}
		id := data.Elicitations[0].ElicitationID
		if id == "" || given[id] != "" {
			t.Fatalf("%s's URL elicitation reached the client as %q, the id %s's already has (or none): one's completion would finish both", server, id, given[id])
		}
		given[id] = server
	}
	for _, server := range []string{"b", "a"} {
		if _, err := conn.Call(ctx, "tools/call", map[string]any{"name": server + "__linked", "arguments": map[string]any{}}); err != nil {
			t.Fatalf("%s__linked: %v", server, err)
		}
		if id := waitFor(t, server+"'s notifications/elicitation/complete", completed, nil); given[id] != server {
			t.Fatalf("%s's flow finished, and the client was told %q completed, which it was given for %q", server, id, given[id])
		}
	}
}
