package gateway

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// job is a modern client's forwarded request running in the runtime. It
// outlives the client request that started it: when the server asks a
// question (elicitation, roots) the job is parked and the client gets
// input_required with a requestState naming it; the client's retry with
// inputResponses resumes it, and the server's exchange goes on where it
// was. The legacy server never learns that its question crossed an
// MRTR round trip.
type job struct {
	g      *Gateway
	cl     *client
	method string
	server string
	name   string
	ctx    context.Context // the runtime request's: ends on cancel or abandon
	cancel context.CancelFunc
	result chan jobResult // the runtime's answer (buffered)
	asks   chan *ask      // the server's questions, one at a time
	fwd    *forward

	started time.Time

	mu      sync.Mutex
	lastID  string // the id of the client request that last waited on the job
	current *call  // the client request waiting on the job; nil while parked
	pending *ask   // the question the client holds
	state   string
	timer   *time.Timer
	seq     int
	ended   bool
}

type jobResult struct {
	res any
	err error
}

// ask is one question of the server, waiting for the client's answer.
type ask struct {
	key    string
	req    mcp.InputRequest
	answer chan json.RawMessage // buffered
}

// inputRequired is a modern answer asking the client for input; dispatch
// adds _meta to it but no cache hint.
type inputRequired struct{ mcp.InputRequiredWire }

// startJob runs t for a modern request and waits on it.
func (g *Gateway) startJob(ctx context.Context, c *call, t *target, release func()) (any, error) {
	j := &job{g: g, cl: c.cl, method: c.method, server: t.server, name: t.name, started: c.started,
		result: make(chan jobResult, 1), asks: make(chan *ask), fwd: &forward{}, current: c, lastID: c.id}
	j.ctx, j.cancel = context.WithCancel(upstreamCtx(c.cl.ctx, c))
	j.fwd.target.Store(c)
	c.setJob(j)
	g.wg.Go(func() {
		res, err := t.run(g.hear(runtime.WithResponder(j.ctx, c.cl.responder)), g.register(j.fwd, c, t.server))
		// Done with before the client can see the answer: a client that
		// sends its next requests at once finds its slot free.
		g.unregister(j.fwd)
		release()
		j.result <- jobResult{res, err}
	})
	return j.wait(ctx, c)
}

// wait waits for the job's answer or its next question, for request c.
func (j *job) wait(ctx context.Context, c *call) (any, error) {
	select {
	case r := <-j.result:
		j.end()
		return r.res, r.err
	case a := <-j.asks:
		return j.park(c, a)
	case <-ctx.Done():
		// The client cancelled the request or went away: so does the
		// runtime's request.
		j.abandon()
		<-j.result
		return nil, ctx.Err()
	}
}

// park hands the question to the client as input_required.
func (j *job) park(c *call, a *ask) (any, error) {
	state := newState()
	timeout := j.g.opts.InputTimeout
	if timeout <= 0 {
		timeout = c.cl.policy().callTimeout()
	}
	j.mu.Lock()
	j.current, j.pending, j.state = nil, a, state
	j.timer = time.AfterFunc(timeout, func() { j.g.expire(state) })
	j.mu.Unlock()
	j.fwd.target.Store(nil)
	j.g.mu.Lock()
	j.g.parked[state] = j
	j.g.mu.Unlock()
	j.cl.setParked(j, true)
	requests, _ := json.Marshal(map[string]mcp.InputRequest{a.key: a.req})
	st, _ := json.Marshal(state)
	return inputRequired{mcp.InputRequiredWire{ResultType: mcp.InputRequired, InputRequests: requests, RequestState: st}}, nil
}

// ask is the runtime side: the server's question waits for the client's
// answer (a retry), or for the job to end.
func (j *job) ask(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	j.mu.Lock()
	j.seq++
	a := &ask{key: "q" + strconv.Itoa(j.seq), req: req, answer: make(chan json.RawMessage, 1)}
	j.mu.Unlock()
	select {
	case j.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-j.ctx.Done():
		return nil, j.ctx.Err()
	}
	select {
	case ans := <-a.answer:
		return ans, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-j.ctx.Done():
		return nil, j.ctx.Err()
	}
}

// resume continues a parked job with the client's retry c.
func (g *Gateway) resume(ctx context.Context, c *call, state string) (any, error) {
	g.mu.Lock()
	j := g.parked[state]
	if j != nil && j.method == c.method {
		delete(g.parked, state)
	}
	g.mu.Unlock()
	if j == nil {
		return nil, invalidParams("requestState is unknown or expired: mcpdeck cancels a question that is not answered within the call timeout; send the request again without requestState")
	}
	if j.method != c.method {
		return nil, invalidParams("requestState belongs to a %s request, not %s", j.method, c.method)
	}
	var p mcp.Retry
	_ = json.Unmarshal(c.params, &p)
	j.mu.Lock()
	j.timer.Stop()
	a := j.pending
	j.pending, j.current, j.lastID = nil, c, c.id
	j.mu.Unlock()
	j.cl.setParked(j, false)
	c.setJob(j)
	c.resolved(j.server, j.name)
	j.fwd.target.Store(c)
	if id := j.fwd.key.id; id != 0 {
		c.mu.Lock()
		c.upstream = id
		c.mu.Unlock()
	}
	ans, ok := p.InputResponses[a.key]
	if !ok {
		// No answer to the question: for the server it was dismissed
		// (sampling: declined, which the responder says).
		switch a.req.Method {
		case mcp.MethodListRoots:
			ans = mcp.RootsResult(nil)
		case mcp.MethodSample:
			ans = nil
		default:
			ans = mcp.ElicitCancel()
		}
	}
	a.answer <- ans
	return j.wait(ctx, c)
}

// expire gives up on a job whose client did not retry in time.
func (g *Gateway) expire(state string) {
	g.mu.Lock()
	j := g.parked[state]
	delete(g.parked, state)
	g.mu.Unlock()
	if j != nil {
		j.abandon()
	}
}

// abandon cancels the runtime's request (the server is told) and ends the job.
func (j *job) abandon() {
	j.cancel()
	j.end()
}

func (j *job) end() {
	j.mu.Lock()
	if j.ended {
		j.mu.Unlock()
		return
	}
	j.ended = true
	if j.timer != nil {
		j.timer.Stop()
	}
	j.mu.Unlock()
	j.cancel()
	j.cl.setParked(j, false)
}

// info is the parked job as the Clients view lists it.
func (j *job) info() Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	return Request{Client: j.cl.id, ID: j.lastID, Method: j.method, Name: j.name, Server: j.server, UpstreamID: j.fwd.key.id,
		Started: j.started, WaitingForInput: true}
}

// newState returns an unguessable requestState: it is the only thing that
// ties a stateless client's retry to the parked job.
func newState() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return "mcpdeck-" + base64.RawURLEncoding.EncodeToString(b[:])
}
