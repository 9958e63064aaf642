package jsonrpctest

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// The modern-era modes: a hand-written 2026-07-28 server on stdio (see
// [Modern]) and the same server with one defect each, plus legacy servers
// that answer a server/discover probe the ways real legacy servers do.
const (
	// Modern is a well-behaved modern-only server: server/discover, a
	// _meta envelope required on every request (-32602 without), -32022
	// for any other version and for initialize, MRTR, subscriptions/listen,
	// per-request logs and progress. See modernTools.
	Modern Mode = "modern"
	// ModernNoResultType omits resultType from every result, as servers of
	// earlier revisions do: the client must read it as complete.
	ModernNoResultType Mode = "modern-no-result-type"
	// ModernChangedState issues one requestState and expects another back,
	// so every retry of ask fails with -32602.
	ModernChangedState Mode = "modern-changed-state"
	// ModernEndlessInput answers ask with input_required forever.
	ModernEndlessInput Mode = "modern-endless-input"
	// ModernNoCommonVersion answers every request with -32022 listing only
	// 2099-01-01.
	ModernNoCommonVersion Mode = "modern-no-common-version"
	// ModernListenNoAck never acknowledges subscriptions/listen (and never
	// answers it).
	ModernListenNoAck Mode = "modern-listen-no-ack"
	// LegacySilentDiscover is the Normal (legacy) server that ignores
	// unknown methods: server/discover is never answered.
	LegacySilentDiscover Mode = "legacy-silent-discover"
	// LegacyDiscoverInvalidParams is the Normal server answering -32602 to
	// every request before initialize, server/discover included. (The
	// Normal server itself answers server/discover with -32601.)
	LegacyDiscoverInvalidParams Mode = "legacy-discover-invalid-params"
)

// ModernVersion is the revision the modern fakes speak.
const ModernVersion = "2026-07-28"

// ModernState is the requestState the Modern server's ask tool issues, as
// a JSON string token. It holds escapes a sloppy client could get wrong
// (\u00e9 for é, \/ for /, an escaped quote). The server accepts the
// retry only with exactly this string value; the TypeScript SDK v2 client
// echoes the value re-encoded (é raw, / unescaped), which the
// specification allows ("the exact value"), so the value is compared, not
// the bytes of the token.
const ModernState = `"ask-v1:\u00e9\/\"1"`

const (
	codeUnsupportedVersion = -32022
	codeMissingCapability  = -32021
)

// modernState is what the modern fakes remember; guarded by server.mu.
type modernState struct {
	listens map[string]*call // open listen streams by key
	rounds  int              // ModernEndlessInput: rounds so far
	// subs are the resources each open listen stream subscribed to, by key.
	subs  map[string][]string
	tasks map[string]*fakeTask // the task tool's tasks, by id
	next  int                  // the last task number
}

func (m Mode) modern() bool {
	switch m {
	case Modern, ModernNoResultType, ModernChangedState, ModernEndlessInput, ModernNoCommonVersion, ModernListenNoAck:
		return true
	}
	return false
}

// envelope is the part of a modern request's _meta the fakes check.
type envelope struct {
	Version      *string                    `json:"io.modelcontextprotocol/protocolVersion"`
	Capabilities map[string]json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel     string                     `json:"io.modelcontextprotocol/logLevel"`
	Progress     json.RawMessage            `json:"progressToken"`
}

// handleModern answers one request of a modern mode.
func (s *server) handleModern(c *call) {
	if s.mode == ModernNoCommonVersion {
		s.failData(c, codeUnsupportedVersion, "Unsupported protocol version", map[string]any{"supported": []string{"2099-01-01"}, "requested": ModernVersion})
		return
	}
	var p modernParams
	if err := unmarshalParams(c.params, &p); err != nil {
		s.fail(c, codeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	if c.method == "initialize" {
		requested := ""
		var ip struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = unmarshalParams(c.params, &ip)
		requested = ip.ProtocolVersion
		s.failData(c, codeUnsupportedVersion, "Unsupported protocol version: "+requested+" (this server speaks only "+ModernVersion+")", map[string]any{"supported": []string{ModernVersion}, "requested": requested})
		return
	}
	if p.Meta == nil || p.Meta.Version == nil || p.Meta.Capabilities == nil {
		s.fail(c, codeInvalidParams, "Invalid params: the _meta envelope (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities) is required")
		return
	}
	if *p.Meta.Version != ModernVersion {
		s.failData(c, codeUnsupportedVersion, "Unsupported protocol version: "+*p.Meta.Version, map[string]any{"supported": []string{ModernVersion}, "requested": *p.Meta.Version})
		return
	}
	if len(p.Meta.Progress) > 0 && string(p.Meta.Progress) != "null" {
		c.progressToken = p.Meta.Progress
	}
	switch c.method {
	case "server/discover":
		s.replyModern(c, map[string]any{
			"supportedVersions": []string{ModernVersion},
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "logging": struct{}{},
				"resources": map[string]any{"subscribe": true}, "extensions": map[string]any{extensionTasks: struct{}{}}},
			"instructions": "A fake modern MCP server for mcpdeck's tests, in mode " + string(s.mode) + ".",
			"ttlMs":        60000,
			"cacheScope":   "public",
		})
	case "tools/list":
		s.replyModern(c, map[string]any{"tools": modernToolList, "ttlMs": 60000, "cacheScope": "public"})
	case "resources/list":
		s.replyModern(c, map[string]any{"resources": []any{map[string]any{"uri": FakeResource, "name": "clock", "mimeType": "text/plain"}}, "ttlMs": 0})
	case "resources/templates/list":
		s.replyModern(c, map[string]any{"resourceTemplates": []any{}})
	case "tasks/get", "tasks/update", "tasks/cancel":
		s.taskRequest(c)
	case "tools/call":
		s.modernCall(c, &p)
	case "subscriptions/listen":
		s.listen(c)
	default:
		s.fail(c, codeMethodNotFound, "Method not found: "+c.method)
	}
}

// modernToolList is what the Modern server lists.
var modernToolList = []map[string]any{
	{"name": "echo", "description": "Echoes text.", "inputSchema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
	{"name": "ask", "description": "Asks for a name (MRTR elicitation), then greets.", "inputSchema": json.RawMessage(`{"type":"object"}`)},
	{"name": "slow", "description": "Answers after seconds, with progress every 50 ms when asked.", "inputSchema": json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number"}}}`)},
	{"name": "notify_changed", "description": "Announces notifications/tools/list_changed on every listen stream.", "inputSchema": json.RawMessage(`{"type":"object"}`)},
	{"name": "log", "description": "Logs at debug, info, warning and error; the request's logLevel filters.", "inputSchema": json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
	{"name": "task", "description": "Runs as a task (the tasks extension): working, then input_required (asks to confirm) when input is true, then completed.", "inputSchema": json.RawMessage(`{"type":"object","properties":{"input":{"type":"boolean"},"seconds":{"type":"number"}}}`)},
	{"name": "end_listens", "description": "Ends every listen stream as a server may: a complete response to it, then notifications/cancelled naming it.", "inputSchema": json.RawMessage(`{"type":"object"}`)},
	{"name": "touch", "description": "Announces notifications/resources/updated for uri on every listen stream subscribed to it.", "inputSchema": json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`)},
}

var logSeverity = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// modernParams are the params the modern fakes read, decoded once.
type modernParams struct {
	Meta           *envelope                  `json:"_meta"`
	Name           string                     `json:"name"`
	Arguments      map[string]json.RawMessage `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage            `json:"requestState"`
}

func (s *server) modernCall(c *call, p *modernParams) {
	meta := p.Meta
	switch p.Name {
	case "echo":
		var text string
		if err := json.Unmarshal(p.Arguments["text"], &text); err != nil {
			r := textResult("invalid arguments: text is required and must be a string")
			r["isError"] = true
			s.replyModern(c, r)
			return
		}
		s.replyModern(c, textResult(text))
	case "ask":
		s.ask(c, meta, p.InputResponses, p.RequestState)
	case "slow":
		secs := 30.0
		_ = json.Unmarshal(p.Arguments["seconds"], &secs)
		s.modernSlow(c, secs)
	case "notify_changed":
		// A cancelled listen may not have left the table yet; its context
		// says it is over.
		s.mu.Lock()
		ids := make([]json.RawMessage, 0, len(s.modern.listens))
		for _, l := range s.modern.listens {
			if l.ctx.Err() == nil {
				ids = append(ids, l.id)
			}
		}
		s.mu.Unlock()
		for _, id := range ids {
			s.notify("notifications/tools/list_changed", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": id}})
		}
		s.replyModern(c, textResult("ok"))
	case "task":
		s.startTask(c, meta, p.Arguments)
		return
	case "end_listens":
		s.endListens()
		s.replyModern(c, textResult("ended"))
	case "touch":
		var uri string
		_ = json.Unmarshal(p.Arguments["uri"], &uri)
		s.touch(uri)
		s.replyModern(c, textResult("touched "+uri))
	case "log":
		var msg string
		_ = json.Unmarshal(p.Arguments["message"], &msg)
		if least, ok := logSeverity[meta.LogLevel]; ok {
			for _, level := range []string{"debug", "info", "warning", "error"} {
				if logSeverity[level] >= least {
					s.notify("notifications/message", map[string]any{"level": level, "logger": "fake", "data": level + ": " + msg})
				}
			}
		} else if meta.LogLevel != "" {
			s.fail(c, codeInvalidParams, "Invalid params: unknown log level "+meta.LogLevel)
			return
		}
		s.replyModern(c, textResult("logged"))
	default:
		s.fail(c, codeInvalidParams, "unknown tool: "+p.Name)
	}
}

// ask is the MRTR tool: input_required with an elicitation and ModernState,
// then a greeting when the retry carries the name and the exact state.
func (s *server) ask(c *call, meta *envelope, responses map[string]json.RawMessage, state json.RawMessage) {
	if _, ok := meta.Capabilities["elicitation"]; !ok {
		s.failData(c, codeMissingCapability, "Missing required client capability: elicitation", map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": struct{}{}}}})
		return
	}
	if s.mode == ModernEndlessInput {
		s.mu.Lock()
		s.modern.rounds++
		n := s.modern.rounds
		s.mu.Unlock()
		s.replyModern(c, inputRequired(fmt.Sprintf("%q", fmt.Sprintf("round-%d", n))))
		return
	}
	if state != nil {
		want := ModernState
		if s.mode == ModernChangedState {
			want = `"ask-v2"`
		}
		if !sameString(state, want) {
			s.fail(c, codeInvalidParams, fmt.Sprintf("Invalid params: requestState %s is not the one this server issued", state))
			return
		}
		var answer struct {
			Action  string `json:"action"`
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		if json.Unmarshal(responses["who"], &answer) == nil && answer.Action == "accept" && answer.Content.Name != "" {
			s.replyModern(c, textResult("Hello, "+answer.Content.Name+"!"))
			return
		}
		if answer.Action == "decline" || answer.Action == "cancel" {
			r := textResult("No name given (" + answer.Action + ").")
			s.replyModern(c, r)
			return
		}
	}
	s.replyModern(c, inputRequired(ModernState))
}

// sameString reports whether two JSON string tokens hold the same value.
func sameString(a json.RawMessage, b string) bool {
	var x, y string
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && x == y
}

func inputRequired(state string) map[string]any {
	return map[string]any{
		"resultType": "input_required",
		"inputRequests": map[string]any{"who": map[string]any{
			"method": "elicitation/create",
			"params": map[string]any{"mode": "form", "message": "What is your name?", "requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"octocat"}},"required":["name"]}`)},
		}},
		"requestState": json.RawMessage(state),
	}
}

// listen acknowledges a subscriptions/listen with the granted subset and
// keeps the stream open until notifications/cancelled names it.
func (s *server) listen(c *call) {
	if s.mode == ModernListenNoAck {
		<-c.ctx.Done()
		return
	}
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = unmarshalParams(c.params, &p)
	granted := map[string]any{}
	if string(p.Notifications["toolsListChanged"]) == "true" {
		granted["toolsListChanged"] = true
	}
	var uris []string
	_ = json.Unmarshal(p.Notifications["resourceSubscriptions"], &uris)
	if len(uris) > 0 {
		granted["resourceSubscriptions"] = uris
	}
	s.mu.Lock()
	if s.modern.listens == nil {
		s.modern.listens = map[string]*call{}
		s.modern.subs = map[string][]string{}
	}
	s.modern.listens[c.key] = c
	s.modern.subs[c.key] = uris
	s.mu.Unlock()
	s.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": granted, "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": c.id}})
	<-c.ctx.Done()
	s.mu.Lock()
	delete(s.modern.listens, c.key)
	delete(s.modern.subs, c.key)
	s.mu.Unlock()
}

// replyModern answers with resultType complete (unless the result has its
// own) and the server's identity, or without resultType in
// ModernNoResultType.
func (s *server) replyModern(c *call, result map[string]any) {
	if s.mode == ModernNoResultType {
		delete(result, "resultType")
	} else if _, ok := result["resultType"]; !ok {
		result["resultType"] = "complete"
	}
	result["_meta"] = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake-" + string(s.mode), "version": "0.0.1"}}
	s.reply(c, result)
}

// failData answers c with an error carrying data, unless it was cancelled.
func (s *server) failData(c *call, code int, msg string, data any) {
	if c.cancelled.Load() {
		return
	}
	s.out.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", c.id, map[string]any{"code": code, "message": msg, "data": data}})
}

// modernSlow answers after secs, with progress every 50 ms when the
// request carried a progressToken; a cancelled call is never answered.
func (s *server) modernSlow(c *call, secs float64) {
	if secs < 0 || secs > 1e6 || math.IsNaN(secs) {
		secs = 30
	}
	done := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer done.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for step := 1; ; step++ {
		select {
		case <-c.ctx.Done():
			return
		case <-done.C:
			s.replyModern(c, textResult(fmt.Sprintf("slept %gs", secs)))
			return
		case <-tick.C:
			if c.progressToken != nil {
				s.notify("notifications/progress", map[string]any{"progressToken": c.progressToken, "progress": step, "message": fmt.Sprintf("step %d", step)})
			}
		}
	}
}

// legacyProbeDefect applies the legacy modes' answer to a request the
// Normal server does not know (it answers -32601): silence, or -32602
// before initialize. It reports whether it dealt with the request.
func (s *server) legacyProbeDefect(c *call) bool {
	switch {
	case s.mode == LegacySilentDiscover:
		return true // never answered
	case s.mode == LegacyDiscoverInvalidParams && !s.initialized.Load():
		s.fail(c, codeInvalidParams, "Invalid params: the server is not initialized")
		return true
	}
	return false
}
