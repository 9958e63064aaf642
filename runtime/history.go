package runtime

import (
	"encoding/json"
	"sync"
	"time"
)

// CallStatus is how a recorded call ended.
type CallStatus int

// Call outcomes.
const (
	CallOK        CallStatus = iota // a result without isError
	CallToolError                   // a result with isError
	CallFailed                      // a protocol, transport or argument error
	CallCancelled                   // cancelled or timed out
)

var callStatusNames = [...]string{"ok", "tool error", "failed", "cancelled"}

func (s CallStatus) String() string { return callStatusNames[s] }

// MarshalText writes the status's name.
func (s CallStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// CallRecord is one tool call as the history keeps it: what was asked,
// and what came back, so a person can reopen, re-run or save it.
type CallRecord struct {
	Seq       uint64          `json:"seq"` // increases across the session
	Server    string          `json:"server"`
	Tool      string          `json:"tool"` // the server's tool name
	Arguments json.RawMessage `json:"arguments"`
	Started   time.Time       `json:"started"`
	Duration  time.Duration   `json:"duration"`
	RequestID uint64          `json:"requestId,omitempty"`
	Status    CallStatus      `json:"status"`
	Result    *Result         `json:"result,omitempty"`
	Err       *ErrorInfo      `json:"error,omitempty"`
}

// Bounds of the call history: the oldest records go first when either is
// exceeded, and are counted.
const (
	historyMaxCalls = 500
	historyMaxBytes = 32 << 20
)

// history is the session's bounded call history, shared by every caller.
type history struct {
	mu      sync.Mutex
	seq     uint64
	calls   []CallRecord // oldest first
	bytes   int
	dropped uint64
}

// add records a finished call and returns its sequence number.
func (h *history) add(rec CallRecord) uint64 {
	size := recordSize(rec)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	rec.Seq = h.seq
	h.calls = append(h.calls, rec)
	h.bytes += size
	for len(h.calls) > 1 && (len(h.calls) > historyMaxCalls || h.bytes > historyMaxBytes) {
		h.bytes -= recordSize(h.calls[0])
		h.calls[0] = CallRecord{}
		h.calls = h.calls[1:]
		h.dropped++
	}
	return rec.Seq
}

func recordSize(rec CallRecord) int {
	n := len(rec.Arguments) + 256
	if r := rec.Result; r != nil {
		n += len(r.StructuredContent)
		for _, c := range r.Content {
			n += blockSize(c)
		}
	}
	return n
}

// History returns the recorded tool calls, oldest first, and how many
// older ones were dropped to keep the history bounded.
func (c *Controller) History() ([]CallRecord, uint64) {
	c.hist.mu.Lock()
	defer c.hist.mu.Unlock()
	return append([]CallRecord(nil), c.hist.calls...), c.hist.dropped
}

// record adds a finished Call to the history.
func (c *Controller) record(req CallRequest, tool string, started time.Time, res *Result, err error) {
	rec := CallRecord{Server: req.Server, Tool: tool, Arguments: append(json.RawMessage(nil), req.Arguments...),
		Started: started, Duration: time.Since(started), Result: res}
	if len(rec.Arguments) == 0 {
		rec.Arguments = json.RawMessage("{}")
	}
	switch {
	case err != nil:
		rec.Status = CallFailed
		info := errorInfoOf(req.Server, "tools/call", err)
		rec.Err = info
		if info.Kind == KindCancelled || info.Kind == KindTimeout {
			rec.Status = CallCancelled
		}
	case res.IsError:
		rec.Status = CallToolError
	}
	if res != nil {
		rec.RequestID, rec.Duration = res.RequestID, res.Duration
	}
	c.hist.add(rec)
}

// errorInfoOf returns the data of an error the runtime returned.
func errorInfoOf(server, method string, err error) *ErrorInfo {
	if ce, ok := err.(*CallError); ok {
		info := ce.Info
		return &info
	}
	return errorInfo(server, method, err)
}
