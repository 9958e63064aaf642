package jsonrpctest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// What the Modern fake adds for the tasks extension and resource
// subscriptions through subscriptions/listen:
//
//	task {input, seconds}  declared tasks extension: answers resultType
//	                       "task" (pollIntervalMs 100); the task works for
//	                       seconds (default 0.3), then, when input is true,
//	                       is input_required asking "confirm" (an
//	                       elicitation) until tasks/update answers it, then
//	                       completes with "task done: ACTION"; tasks/cancel
//	                       cancels it and logs "task cancelled ID" on stderr.
//	                       Without the extension declared: -32021.
//	end_listens            ends every open listen stream gracefully: a complete
//	                       response to it, then notifications/cancelled naming it
//	touch {uri}            notifications/resources/updated for uri on every
//	                       listen stream whose resourceSubscriptions hold it
//
// resources/list lists FakeResource; listen grants the resourceSubscriptions
// it is asked for.

// FakeResource is the one resource the Modern fake lists.
const FakeResource = "fake://clock"

const extensionTasks = "io.modelcontextprotocol/tasks"

// fakeTask is one task of the task tool; guarded by server.mu.
type fakeTask struct {
	id      string
	status  string
	message string
	input   bool
	answer  string // the confirm answer's action, once given
	ready   time.Time
	created time.Time
}

func (s *server) startTask(c *call, meta *envelope, args map[string]json.RawMessage) {
	var ext struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(meta.Capabilities["extensions"], &ext.Extensions)
	if _, ok := ext.Extensions[extensionTasks]; !ok {
		s.failData(c, codeMissingCapability, "Missing required client capability: the tasks extension",
			map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{extensionTasks: struct{}{}}}})
		return
	}
	secs := 0.3
	_ = json.Unmarshal(args["seconds"], &secs)
	var input bool
	_ = json.Unmarshal(args["input"], &input)
	now := time.Now()
	s.mu.Lock()
	if s.modern.tasks == nil {
		s.modern.tasks = map[string]*fakeTask{}
	}
	s.modern.next++
	t := &fakeTask{id: fmt.Sprintf("task-%d", s.modern.next), status: "working", input: input, created: now,
		ready: now.Add(time.Duration(secs * float64(time.Second)))}
	s.modern.tasks[t.id] = t
	r := t.wire()
	s.mu.Unlock()
	r["resultType"] = "task"
	s.replyModern(c, r)
}

// advance moves a task along with time; under s.mu.
func (t *fakeTask) advance(now time.Time) {
	if t.status != "working" || now.Before(t.ready) {
		return
	}
	if t.input && t.answer == "" {
		t.status, t.message = "input_required", "waiting for confirmation"
		return
	}
	t.status, t.message = "completed", ""
}

// wire is the task as tasks/get shows it; under s.mu.
func (t *fakeTask) wire() map[string]any {
	at := t.created.UTC().Format(time.RFC3339)
	m := map[string]any{"taskId": t.id, "status": t.status, "createdAt": at, "lastUpdatedAt": at, "ttlMs": nil, "pollIntervalMs": 100}
	if t.message != "" {
		m["statusMessage"] = t.message
	}
	switch t.status {
	case "input_required":
		m["inputRequests"] = map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": map[string]any{
			"mode": "form", "message": "Go ahead?", "requestedSchema": json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean","default":true}}}`)}}}
	case "completed":
		m["result"] = textResult("task done: " + t.answer)
	}
	return m
}

func (s *server) taskRequest(c *call) {
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = unmarshalParams(c.params, &p)
	s.mu.Lock()
	t := s.modern.tasks[p.TaskID]
	if t == nil {
		s.mu.Unlock()
		s.fail(c, codeInvalidParams, "Invalid params: no task "+p.TaskID)
		return
	}
	t.advance(time.Now())
	var result map[string]any
	switch c.method {
	case "tasks/get":
		result = t.wire()
	case "tasks/update":
		var answer struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(p.InputResponses["confirm"], &answer) == nil && t.status == "input_required" {
			t.answer, t.status, t.message = answer.Action, "working", "confirmed"
			t.ready = time.Now().Add(100 * time.Millisecond)
		}
		result = map[string]any{}
	case "tasks/cancel":
		if t.status == "working" || t.status == "input_required" {
			t.status, t.message = "cancelled", "cancelled by the client"
		}
		result = map[string]any{}
	}
	s.mu.Unlock()
	if c.method == "tasks/cancel" {
		s.logf("task cancelled %s", p.TaskID)
	}
	s.replyModern(c, result)
}

// touch announces a resource update on the listen streams subscribed to uri.
func (s *server) touch(uri string) {
	s.mu.Lock()
	var ids []json.RawMessage
	for key, l := range s.modern.listens {
		if l.ctx.Err() == nil && slices.Contains(s.modern.subs[key], uri) {
			ids = append(ids, l.id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.notify("notifications/resources/updated", map[string]any{"uri": uri, "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": id}})
	}
}

// endListens ends every open listen stream as the specification lets a
// server: a complete response to the listen request, then (stdio)
// notifications/cancelled naming it.
func (s *server) endListens() {
	s.mu.Lock()
	var ls []*call
	for key, l := range s.modern.listens {
		if l.ctx.Err() == nil {
			ls = append(ls, l)
		}
		delete(s.modern.listens, key)
		delete(s.modern.subs, key)
	}
	s.mu.Unlock()
	for _, l := range ls {
		s.replyModern(l, map[string]any{})
		s.notify("notifications/cancelled", map[string]any{"requestId": l.id, "reason": "the server ended the subscription"})
	}
}
