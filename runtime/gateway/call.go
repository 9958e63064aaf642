package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"
)

// reqParams are the members of a request's params the gateway reads on
// every request; decoded once per request.
type reqParams struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
	State     *string         `json:"requestState"`
	Task      json.RawMessage `json:"task"` // 2025-11-25: run the call as a task
}

// call is one request of a client being served.
type call struct {
	cl     *client
	ctx    context.Context // the request's: ends when the client cancels it or goes away
	id     string          // the client's request id as on the wire
	method string
	params json.RawMessage
	env    *envelope // the modern envelope; nil for a legacy request
	// notify sends a notification related to this request: on its own
	// stream (modern HTTP) or the client's connection. It runs on the
	// client's outbox goroutine.
	notify  func(ctx context.Context, method string, params any) error
	started time.Time
	token   json.RawMessage // the client's progressToken, if any
	p       reqParams       // the params every method looks at, decoded once

	mu       sync.Mutex
	srv      string
	name     string
	upstream uint64
	waiting  bool
	job      *job           // modern forwarded requests: the job it waits on
	approval *AuditApproval // the operator's decision, when a rule asked for one

	done atomic.Bool
}

func (c *call) info() Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Request{Client: c.cl.id, ID: c.id, Method: c.method, Name: c.name, Server: c.srv, UpstreamID: c.upstream,
		Started: c.started, WaitingForInput: c.waiting}
}

func (c *call) server() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.srv
}

// resolved records where the request goes.
func (c *call) resolved(server, name string) {
	c.mu.Lock()
	c.srv, c.name = server, name
	c.mu.Unlock()
}

// relate queues a notification related to the request, unless it is
// already answered (progress after the result would confuse clients).
func (c *call) relate(method string, params any) {
	if c.notify == nil {
		return
	}
	c.cl.out.push(func() {
		if !c.done.Load() {
			c.cl.send(c.notify, method, params)
		}
	})
}

func (c *call) setJob(j *job) {
	c.mu.Lock()
	c.job = j
	c.mu.Unlock()
}

func (c *call) getJob() *job {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.job
}
