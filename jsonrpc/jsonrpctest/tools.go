package jsonrpctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// pageSize splits the catalogue into the two tools/list pages every mode serves, so
// clients must follow nextCursor to see all tools.
const pageSize = 3

// param is one property of a tool's input object.
type param struct {
	name     string
	typ      string // "string", "number" or "integer"
	required bool
	desc     string
}

// tool is one fake tool: what tools/list shows and what tools/call runs.
type tool struct {
	name        string
	description string
	params      []param
	rawSchema   json.RawMessage // when set, the schema as listed, unvalidated on purpose
	meta        json.RawMessage // when set, the tool's _meta as listed
	run         func(s *server, c *call, args map[string]any)
}

// catalogue is the tools one server lists, in listing order.
type catalogue struct {
	tools  []*tool
	byName map[string]*tool
}

func newCatalogue(mode Mode, cfg settings, pid int) *catalogue {
	echoDesc := "Echoes the text argument back as one text block."
	if cfg.echoDesc != "" {
		echoDesc = cfg.echoDesc
	}
	if mode == SecretLeak {
		echoDesc += " Debug: authenticated with token " + cfg.secret + "."
	}
	tools := []*tool{
		{name: "echo", description: echoDesc, params: []param{{"text", "string", true, "Text to echo."}}, run: runEcho},
		{name: "slow", description: "Answers after the given seconds (default 30), reporting progress every 50 ms when asked.", params: []param{{"seconds", "number", false, "How long to take."}}, run: runSlow},
		{name: "big", description: "Returns one text block of the given number of 'x' characters.", params: []param{{"bytes", "integer", false, "Size of the text block (default 1 MiB)."}}, run: runBig},
		{name: "notify_changed", description: "Sends notifications/tools/list_changed, then answers ok.", run: runNotifyChanged},
		{name: "flood", description: "Sends count notifications/message as fast as possible, then answers done.", params: []param{{"count", "integer", false, "How many notifications (default 1000)."}}, run: runFlood},
		{name: "crash", description: "Exits the server process with status 3 without answering.", run: runCrash},
		{name: "fail", description: "Always fails with an isError result.", run: runFail},
	}
	if mode == InvalidSchema {
		tools = append(tools,
			&tool{name: "bad_type", description: "Its schema names a type that does not exist.", rawSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"strnig"}}}`), run: runOK},
			&tool{name: "array_input", description: "Its schema is not an object schema.", rawSchema: json.RawMessage(`{"type":"array","items":{"type":"string"}}`), run: runOK},
		)
	}
	if mode == HostileEscapes {
		tools = escapeTools(tools)
	}
	tools = append(tools, hostileTools(mode)...)
	tools = checkTools(mode, cfg, tools)
	tools = appTools(mode, tools)
	tools = burstTools(mode, tools)
	if mode == RenameTools {
		for _, t := range tools {
			t.name += "_" + strconv.Itoa(pid)
		}
	}
	cat := &catalogue{tools: tools, byName: make(map[string]*tool, len(tools))}
	for _, t := range tools {
		cat.byName[t.name] = t
	}
	return cat
}

// schema is the tool's inputSchema as listed.
func (t *tool) schema() json.RawMessage {
	if t.rawSchema != nil {
		return t.rawSchema
	}
	props := make(map[string]any, len(t.params))
	var required []string
	for _, p := range t.params {
		props[p.name] = map[string]any{"type": p.typ, "description": p.desc}
		if p.required {
			required = append(required, p.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	data, _ := json.Marshal(s)
	return data
}

func (s *server) listTools(c *call) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if err := unmarshalParams(c.params, &p); err != nil {
		s.fail(c, codeInvalidParams, "invalid tools/list params: "+err.Error())
		return
	}
	tools := s.tools.tools
	result := map[string]any{}
	switch p.Cursor {
	case "":
		if len(tools) > pageSize {
			tools = tools[:pageSize]
			result["nextCursor"] = "page2"
		}
	case "page2":
		tools = tools[min(pageSize, len(tools)):]
	default:
		s.fail(c, codeInvalidParams, fmt.Sprintf("invalid cursor %q: pass the nextCursor of the previous page", p.Cursor))
		return
	}
	listed := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		entry := map[string]any{"name": t.name, "description": t.description, "inputSchema": t.schema()}
		if t.meta != nil {
			entry["_meta"] = t.meta
		}
		listed = append(listed, entry)
	}
	result["tools"] = listed
	if s.hostileList(c, result) {
		return
	}
	s.reply(c, result)
}

// callTool applies the tools/call defects that replace the tool itself, then
// validates the arguments and runs the tool.
func (s *server) callTool(c *call) {
	switch s.mode {
	case CrashOnCall:
		s.logf("crash-on-call: exiting with status 3 on tools/call %s", c.key)
		s.exit(3)
		return
	case Hang:
		<-c.ctx.Done()
		return
	case Oversized:
		if !c.cancelled.Load() {
			s.out.oversized(c.id, s.cfg.size)
		}
		return
	}
	if s.hostileCall(c) {
		return
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := unmarshalParams(c.params, &p); err != nil {
		s.answerCall(c, nil, &rpcError{codeInvalidParams, "invalid tools/call params: " + err.Error()})
		return
	}
	t := s.tools.byName[p.Name]
	if t == nil {
		s.answerCall(c, nil, &rpcError{codeInvalidParams, "unknown tool: " + p.Name})
		return
	}
	args, err := t.validate(p.Arguments)
	if err != nil {
		s.answerCall(c, toolError(err.Error()), nil)
		return
	}
	if s.echoSecretCall(c, p.Name, args) {
		return
	}
	if len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null" {
		c.progressToken = p.Meta.ProgressToken
	}
	t.run(s, c, args)
}

// validate checks arguments against the tool's params; a violation becomes an
// isError result naming the field, the way MCP reports input-validation failures.
func (t *tool) validate(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil || args == nil {
			return nil, fmt.Errorf("invalid arguments for tool %q: arguments must be a JSON object", t.name)
		}
	}
	for _, p := range t.params {
		v, ok := args[p.name]
		if !ok {
			if p.required {
				return nil, fmt.Errorf("invalid arguments for tool %q: %q is required", t.name, p.name)
			}
			continue
		}
		if got := jsonType(v); !fits(p.typ, v) {
			return nil, fmt.Errorf("invalid arguments for tool %q: %q must be %s %s, got %s", t.name, p.name, article(p.typ), p.typ, got)
		}
	}
	return args, nil
}

func fits(typ string, v any) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func article(typ string) string {
	if strings.IndexByte("aeiou", typ[0]) >= 0 {
		return "an"
	}
	return "a"
}

// answerCall delivers a tools/call outcome, with the defects that corrupt delivery
// rather than the result: a shifted id, or a notification in place of a response.
func (s *server) answerCall(c *call, result any, rpcErr *rpcError) {
	if c.cancelled.Load() {
		return
	}
	id := c.id
	switch s.mode {
	case WrongID:
		id = shiftID(c.id)
	case NotifyInstead:
		s.notify("notifications/message", map[string]any{
			"level":  "info",
			"logger": "notify-instead",
			"data": map[string]any{
				"requestId": c.id,
				"message":   "answer to request " + c.key + " sent as a notification",
				"result":    result,
				"error":     rpcErr,
			},
		})
		return
	}
	if rpcErr != nil {
		s.out.send(response{JSONRPC: "2.0", ID: id, Error: rpcErr})
		return
	}
	s.out.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

// shiftID adds 1000 to an integer id; a string id gets "+1000" appended instead.
func shiftID(id json.RawMessage) json.RawMessage {
	if n, err := strconv.ParseInt(compact(id), 10, 64); err == nil {
		return json.RawMessage(strconv.FormatInt(n+1000, 10))
	}
	var str string
	if err := json.Unmarshal(id, &str); err != nil {
		str = compact(id)
	}
	data, _ := json.Marshal(str + "+1000")
	return data
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

func toolError(text string) map[string]any {
	r := textResult(text)
	r["isError"] = true
	return r
}

func runEcho(s *server, c *call, args map[string]any) {
	s.answerCall(c, textResult(args["text"].(string)), nil)
}

func runOK(s *server, c *call, _ map[string]any) { s.answerCall(c, textResult("ok"), nil) }

func runFail(s *server, c *call, _ map[string]any) {
	s.answerCall(c, toolError("fail: this tool always fails, on purpose"), nil)
}

func runCrash(s *server, _ *call, _ map[string]any) {
	s.logf("crashing on purpose")
	s.exit(3)
}

func runNotifyChanged(s *server, c *call, _ map[string]any) {
	s.notify("notifications/tools/list_changed", nil)
	s.answerCall(c, textResult("ok"), nil)
}

func runBig(s *server, c *call, args map[string]any) {
	n := intArg(args, "bytes", 1<<20)
	if n < 0 {
		s.answerCall(c, toolError(`invalid arguments for tool "big": "bytes" must not be negative`), nil)
		return
	}
	s.answerCall(c, textResult(strings.Repeat("x", int(n))), nil)
}

func runFlood(s *server, c *call, args map[string]any) {
	n := intArg(args, "count", 1000)
	if n < 0 {
		s.answerCall(c, toolError(`invalid arguments for tool "flood": "count" must not be negative`), nil)
		return
	}
	s.out.floodMessages("flood", int(n))
	s.answerCall(c, textResult("done"), nil)
}

// runSlow takes its time in 50 ms steps, so progress and cancellation both have
// something to interrupt; a cancelled or abandoned call is never answered.
func runSlow(s *server, c *call, args map[string]any) {
	secs := 30.0
	if v, ok := args["seconds"].(json.Number); ok {
		secs, _ = v.Float64()
	}
	if secs < 0 || secs > 1e6 {
		s.answerCall(c, toolError(`invalid arguments for tool "slow": "seconds" must be between 0 and 1000000`), nil)
		return
	}
	d := time.Duration(secs * float64(time.Second))
	token := c.progressToken
	done := time.NewTimer(d)
	defer done.Stop()
	var tick <-chan time.Time
	if token != nil {
		ticker := time.NewTicker(50 * time.Millisecond)
		defer ticker.Stop()
		tick = ticker.C
	}
	total := math.Ceil(secs / 0.05)
	for step := 1; ; step++ {
		select {
		case <-c.ctx.Done():
			if s.mode == AnswerCancelled {
				s.fail(c, -32800, "request cancelled")
			}
			return
		case <-done.C:
			s.answerCall(c, textResult(fmt.Sprintf("slept %gs", secs)), nil)
			return
		case <-tick:
			s.notify("notifications/progress", map[string]any{
				"progressToken": token,
				"progress":      step,
				"total":         total,
				"message":       fmt.Sprintf("step %d of %g", step, total),
			})
		}
	}
}

// intArg reads an integer argument already checked by validate.
func intArg(args map[string]any, name string, def int64) int64 {
	v, ok := args[name].(json.Number)
	if !ok {
		return def
	}
	f, _ := v.Float64()
	return int64(f)
}
