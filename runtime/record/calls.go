package record

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// The runtime keeps a history of tool calls (Controller.History) that the
// TUI's Requests tab lists with each call's outcome; it is not an event, so
// a recording does not hold it as such. It holds everything it is made of,
// though: the request events say when a call started, how it ended and
// after how long, and the traffic frames hold its arguments and its
// answer. CallsAt rebuilds the history from them, so a replay lists the
// calls a session made, each from the moment it finished, with what came
// back, in recordings of any version.
//
// What cannot be rebuilt: calls the runtime refused before sending
// (arguments that fail the input schema), a result's structuredContent
// check against the tool's outputSchema, and the arguments or result of a
// frame cut at the trace limit (then Arguments or Result is missing).

// placedCall is a call of the history and the entry at which it finished.
type placedCall struct {
	at  int
	rec runtime.CallRecord
	// The wire ids of its first and last round, whose frames hold its
	// arguments and its answer, and the task that produced the result.
	first, last uint64
	rounds      int
	task        string
	err         string // RequestFinished.Err: a failure that is not a JSON-RPC error
}

// wireKey names a message of one server by its JSON-RPC id.
type wireKey struct {
	server, id string
}

// callKey names a call by its server and first round's id.
type callKey struct {
	server string
	id     uint64
}

// CallsAt returns the tool calls finished by entry i, oldest first, as
// the runtime's History had them; see the comment above for what a
// recording cannot say. The records are copies the caller may keep.
func (rec *Recording) CallsAt(i int) []runtime.CallRecord {
	n := sort.Search(len(rec.calls), func(k int) bool { return rec.calls[k].at > i })
	out := make([]runtime.CallRecord, n)
	for k := range out {
		out[k] = rec.calls[k].rec
	}
	return out
}

// indexCalls rebuilds the call history from the entries.
func (rec *Recording) indexCalls() {
	open := map[callKey]*placedCall{}
	requests := map[wireKey][]byte{} // tools/call and tasks/result requests sent
	answers := map[wireKey][]byte{}  // their answers
	taskOf := map[wireKey]string{}   // a tasks/result request's task
	var done []*placedCall
	finish := func(p *placedCall, k callKey, i int, end time.Time) {
		p.at = i
		if p.rec.Duration == 0 {
			p.rec.Duration = end.Sub(p.rec.Started)
		}
		delete(open, k)
		done = append(done, p)
	}
	for i, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.TrafficFrame:
			f := ev.Frame
			if f.Method != "tools/call" && f.Method != "tasks/result" {
				continue
			}
			k := wireKey{ev.Server, f.ID}
			switch {
			case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindRequest:
				requests[k] = f.Raw
			case f.Dir == jsonrpc.In && (f.Kind == jsonrpc.KindResult || f.Kind == jsonrpc.KindError):
				answers[k] = f.Raw
			}
		case runtime.RequestStarted:
			if ev.Method != "tools/call" {
				continue
			}
			k := callKey{ev.Server, rowOf(ev.FirstID, ev.ID)}
			if p := open[k]; p != nil {
				p.last, p.rounds = ev.ID, max(p.rounds, ev.Round) // the next round of the same call
				continue
			}
			open[k] = &placedCall{rec: runtime.CallRecord{Server: ev.Server, Tool: ev.Tool, Started: ev.Time}, first: k.id, last: ev.ID, rounds: max(ev.Round, 1)}
		case runtime.RequestFinished:
			if ev.Method != "tools/call" {
				continue
			}
			k := callKey{ev.Server, rowOf(ev.FirstID, ev.ID)}
			p := open[k]
			if p == nil { // started before the recording did
				p = &placedCall{rec: runtime.CallRecord{Server: ev.Server, Tool: ev.Tool, Started: ev.Time.Add(-ev.Duration)}, first: k.id}
				open[k] = p
			}
			p.last, p.rounds = ev.ID, max(p.rounds, ev.Round, 1)
			if ev.Continues != "" {
				continue // input_required (another round follows) or a task
			}
			switch {
			case ev.Err != "":
				p.rec.Status, p.err = runtime.CallFailed, ev.Err
			case ev.IsError:
				p.rec.Status = runtime.CallToolError
			}
			if max(ev.Round, 1) == 1 {
				p.rec.Duration = ev.Duration
			}
			finish(p, k, i, ev.Time)
		case runtime.RequestCancelled:
			if ev.Method != "tools/call" {
				continue
			}
			k := callKey{ev.Server, rowOf(ev.FirstID, ev.ID)}
			p := open[k]
			if p == nil {
				p = &placedCall{rec: runtime.CallRecord{Server: ev.Server, Tool: ev.Tool, Started: ev.Time}, first: k.id}
			}
			p.last = ev.ID
			p.rec.Status = runtime.CallCancelled
			kind := runtime.KindCancelled
			if strings.HasPrefix(ev.Reason, jsonrpc.ErrTimeout.Error()) {
				kind = runtime.KindTimeout
			}
			ce := &jsonrpc.CancelledError{ID: k.id, Method: ev.Method, Reason: ev.Reason}
			p.rec.Err = &runtime.ErrorInfo{Kind: kind, Server: ev.Server, Method: ev.Method, Message: ce.Error(), At: ev.Time}
			finish(p, k, i, ev.Time)
		case runtime.TaskUpdated:
			if ev.Method != "tools/call" {
				continue
			}
			k := callKey{ev.Server, ev.RequestID}
			p := open[k]
			if p == nil {
				continue
			}
			p.task = ev.Task.TaskID
			switch ev.Task.Status {
			case "completed":
			case "failed":
				p.rec.Status, p.err = runtime.CallFailed, "task "+ev.Task.TaskID+" failed: "+ev.Task.Message
			case "cancelled":
				p.rec.Status = runtime.CallCancelled
				p.rec.Err = &runtime.ErrorInfo{Kind: runtime.KindCancelled, Server: ev.Server, Method: ev.Method,
					Message: "task " + ev.Task.TaskID + " cancelled: " + ev.Task.Message, At: ev.Time}
			default:
				continue // still running
			}
			finish(p, k, i, ev.Time)
		}
	}
	for k, req := range requests {
		if raw, ok := taskRequest(req); ok {
			taskOf[k] = raw
		}
	}
	taskAnswers := map[wireKey][]byte{}
	for k, id := range taskOf {
		if a, ok := answers[k]; ok {
			taskAnswers[wireKey{k.server, id}] = a
		}
	}
	rec.calls = make([]placedCall, 0, len(done))
	for n, p := range done {
		p.rec.Seq = uint64(n + 1)
		p.rec.Arguments = argumentsOf(requests[wireKey{p.rec.Server, jsonrpc.FormatID(p.first)}])
		answer := answers[wireKey{p.rec.Server, jsonrpc.FormatID(p.last)}]
		if p.task != "" {
			answer = taskAnswers[wireKey{p.rec.Server, p.task}]
		}
		p.outcome(answer)
		rec.calls = append(rec.calls, *p)
	}
}

// outcome fills in the result or the error from the call's answer.
func (p *placedCall) outcome(answer []byte) {
	if p.rec.Status == runtime.CallCancelled {
		return
	}
	var msg jsonrpc.Response[*mcp.CallToolResult]
	decoded := json.Unmarshal(answer, &msg) == nil
	switch {
	case decoded && msg.Error != nil:
		p.rec.Status = runtime.CallFailed
		info := &runtime.ErrorInfo{Kind: runtime.KindProtocol, Server: p.rec.Server, Method: "tools/call",
			Code: msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data, At: p.rec.Started.Add(p.rec.Duration)}
		if info.Message == "" {
			info.Message = fmt.Sprintf("error %d with no message", info.Code)
		}
		p.rec.Err = info
	case p.err != "":
		p.rec.Err = &runtime.ErrorInfo{Server: p.rec.Server, Method: "tools/call", Message: p.err, At: p.rec.Started.Add(p.rec.Duration)}
	case decoded && msg.Result != nil:
		// As the runtime returns a result: the server's fields (its _meta
		// and each block's annotations among them), then the runtime's own.
		res := runtime.ResultOf(*msg.Result)
		res.RequestID, res.Duration, res.Rounds, res.TaskID = p.first, p.rec.Duration, max(p.rounds, 1), p.task
		if res.IsError {
			p.rec.Status = runtime.CallToolError
		}
		p.rec.Result, p.rec.RequestID = &res, p.first
	}
}

// argumentsOf is the arguments of a tools/call request as sent, or nil
// when the frame is missing or was cut.
func argumentsOf(req []byte) json.RawMessage {
	var p mcp.CallToolParams
	if !paramsOf(req, &p) || len(p.Arguments) == 0 {
		return nil
	}
	return p.Arguments
}

// taskRequest is the task a tasks/result request asks about.
func taskRequest(req []byte) (string, bool) {
	env, err := jsonrpc.ReadEnvelope(req)
	if method, _ := env.MethodName(); err != nil || method != "tasks/result" {
		return "", false
	}
	var p mcp.TaskRef
	if json.Unmarshal(env.Params, &p) != nil || p.TaskID == "" {
		return "", false
	}
	return p.TaskID, true
}

// paramsOf decodes the params of a request frame into v (a request
// without params leaves v as it is); false when the frame is not whole.
func paramsOf(req []byte, v any) bool {
	env, err := jsonrpc.ReadEnvelope(req)
	if err != nil {
		return false
	}
	return len(env.Params) == 0 || json.Unmarshal(env.Params, v) == nil
}

// rowOf is the id a call is known by: its first round's.
func rowOf(first, id uint64) uint64 {
	if first != 0 {
		return first
	}
	return id
}
