package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// responder puts what a server asks during one client's requests to that
// client: a legacy client gets a server→client request, a modern one an
// input_required answer to the request it is waiting on. The client keeps
// one answers over it (client.responder), so the runtime can tell that all
// the requests in flight on a server belong to the same client.
type responder struct{ cl *client }

// asker puts a server's question to whoever answers it: a client (the
// responder), or a task's poller (taskResponder).
type asker interface {
	ask(ctx context.Context, server, method string, params map[string]any) (json.RawMessage, error)
}

// answers is the runtime.CallResponder (and runtime.SamplingResponder)
// over an asker: each question is asked through it and its answer read.
// cl is the client a sampling answer is said to come from. A question
// passes (runtime.ErrNotAnswered) when the client did not declare the
// capability, or when it cannot be tied to one of the client's modern
// requests; mcpdeck's own Elicitor (roots, sampler) then answers.
type answers struct {
	asker
	cl *client
}

// Elicit asks an elicitation and reads the answer.
func (a *answers) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	params := map[string]any{"message": req.Message}
	if req.Mode == "url" {
		params["mode"], params["url"] = "url", req.URL
		if req.ElicitationID != "" {
			params["elicitationId"] = req.ElicitationID
		}
	} else if len(req.RequestedSchema) > 0 {
		params["requestedSchema"] = req.RequestedSchema
	}
	raw, err := a.ask(ctx, req.Server, mcp.MethodElicit, params)
	if err != nil {
		return runtime.ElicitResponse{}, err
	}
	var resp runtime.ElicitResponse
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Action == "" {
		return runtime.ElicitResponse{}, fmt.Errorf("the client's elicitation answer is not {action, content}: %s", raw)
	}
	return resp, nil
}

// Sample asks the client's model: the server's request as it was sent
// (its reserved _meta keys, which describe its hop, dropped). A client's
// rejection (-1), or a modern client that retries without an answer, is a
// decline; the server hears it as one.
func (a *answers) Sample(ctx context.Context, req runtime.SampleRequest) (runtime.SampleResponse, error) {
	who := clientWords(a.cl.info())
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(req.Raw, &fields); err != nil {
		return runtime.SampleResponse{}, fmt.Errorf("the server's sampling request: %w", err)
	}
	params := make(map[string]any, len(fields))
	for k, v := range fields {
		params[k] = v
	}
	if meta := hopMeta(fields["_meta"]); meta != nil {
		params["_meta"] = meta
	} else {
		delete(params, "_meta")
	}
	raw, err := a.ask(ctx, req.Server, mcp.MethodSample, params)
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc) && rpc.Code == mcp.CodeUserRejected:
		return runtime.SampleResponse{Declined: true, Reason: "declined by " + who + ": " + rpc.Message, By: who}, nil
	case err != nil:
		return runtime.SampleResponse{}, err
	case raw == nil:
		return runtime.SampleResponse{Declined: true, Reason: who + " retried without an answer", By: who}, nil
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return runtime.SampleResponse{}, fmt.Errorf("the client's sampling answer is not a CreateMessageResult: %w", err)
	}
	if err := res.Check(); err != nil {
		return runtime.SampleResponse{}, fmt.Errorf("the client's sampling answer cannot be passed on: %w", err)
	}
	return runtime.SampleResponse{Result: res, By: who}, nil
}

// capable reports whether caps let a client be asked method with params:
// the capability of its kind, the mode of an elicitation (url mode only
// to a client that declared it), and sampling.tools for a sampling
// request that carries tools.
func capable(caps mcp.ClientCapabilities, method string, params map[string]any) bool {
	if !caps.Has(method) {
		return false
	}
	if method == mcp.MethodElicit {
		mode, _ := params["mode"].(string)
		return caps.Elicits(mode)
	}
	if method == mcp.MethodSample {
		if tools, ok := params["tools"].(json.RawMessage); ok && len(tools) > 0 && string(tools) != "null" {
			return caps.Sampling.Tools != nil
		}
	}
	return true
}

// Roots asks roots/list and reads the answer.
func (a *answers) Roots(ctx context.Context, server string) ([]runtime.Root, error) {
	raw, err := a.ask(ctx, server, mcp.MethodListRoots, map[string]any{})
	if err != nil {
		return nil, err
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the client's roots/list answer: %w", err)
	}
	roots := make([]runtime.Root, len(res.Roots))
	for i, r := range res.Roots {
		roots[i] = runtime.Root{URI: r.URI, Name: r.Name}
	}
	a.cl.mu.Lock()
	if a.cl.rootsTo == nil {
		a.cl.rootsTo = map[string]bool{}
	}
	a.cl.rootsTo[server] = true
	a.cl.mu.Unlock()
	return roots, nil
}

// rootsChanged passes a client's notifications/roots/list_changed on to
// the servers that were given its roots, which may hold them: those a
// session revision speaks to are told (2026-07-28 has no such
// notification: its servers ask during each request). A server that asks
// again at once, outside any request, gets what Options.Relay says of a
// question no client's request can be tied to; one that asks during the
// client's next request gets the new roots.
func (g *Gateway) rootsChanged(cl *client) {
	cl.mu.Lock()
	servers := make([]string, 0, len(cl.rootsTo))
	for s := range cl.rootsTo {
		servers = append(servers, s)
	}
	cl.mu.Unlock()
	pol := cl.policy()
	for _, s := range servers {
		if !pol.allows(s) {
			continue
		}
		ctx, cancel := context.WithTimeout(cl.ctx, 5*time.Second)
		_ = g.rt.NotifyRootsChanged(ctx, s) // best effort, like any notification
		cancel()
	}
}

// ask puts a server's question (elicitation/create, roots/list) to the
// client, in its era's way.
func (r *responder) ask(ctx context.Context, server, method string, params map[string]any) (json.RawMessage, error) {
	cl := r.cl
	var calls, modern []*call
	for _, c := range cl.inflightOn(server) {
		if c.ctx.Err() != nil {
			continue // cancelled, and on its way out: it asks nothing more
		}
		calls = append(calls, c)
		if c.env != nil {
			modern = append(modern, c)
		}
	}
	if len(modern) > 0 {
		// The question belongs to one of the client's modern requests only
		// if there is one: MRTR answers it, with the request's capabilities.
		if len(modern) != 1 || modern[0].getJob() == nil || !capable(modern[0].env.caps, method, params) {
			return nil, runtime.ErrNotAnswered
		}
		return modern[0].getJob().ask(ctx, inputRequest(method, params))
	}
	cl.mu.Lock()
	declared := capable(cl.caps, method, params)
	cl.mu.Unlock()
	if !declared || cl.conn == nil {
		return nil, runtime.ErrNotAnswered
	}
	if method == mcp.MethodElicit && params["mode"] == "url" {
		cl.urlElicitation(server, params)
	}
	var related *call
	if len(calls) == 1 {
		related = calls[0]
	}
	opts := []jsonrpc.CallOption{}
	if cl.routeRequest != nil {
		opts = append(opts, jsonrpc.WithIDFunc(func(id uint64) { cl.routeRequest(id, related) }))
	}
	return cl.conn.Call(ctx, method, params, opts...)
}

// inputRequest is a question as a 2026-07-28 client is asked it, inside
// an input_required answer: a URL elicitation without elicitationId,
// which that revision does not have (nor notifications/elicitation/
// complete, which the id is for).
func inputRequest(method string, params map[string]any) mcp.InputRequest {
	if _, ok := params["elicitationId"]; ok && method == mcp.MethodElicit {
		params = maps.Clone(params)
		delete(params, "elicitationId")
	}
	p, _ := json.Marshal(params)
	return mcp.InputRequest{Method: method, Params: p}
}

// urlElicitation readies a URL elicitation of server's for a 2025-11-25
// client, whose revision requires an elicitationId. The client is given
// an id of the gateway's own, never the server's: every server names its
// elicitations in its own space, and two servers behind one gateway may
// well use the same id, which would let one's
// notifications/elicitation/complete finish the other's flow in the
// client. The server's id is remembered with the client's, so that the
// server's completion reaches this client under the id it was given
// (elicitationComplete); the same server asking again under the same id
// (the same flow) gets the same client id. A 2026-07-28 server sends no
// id, and no notification will name the one made up here.
func (cl *client) urlElicitation(server string, params map[string]any) {
	id, _ := params["elicitationId"].(string)
	params["elicitationId"] = cl.elicitationID(server, id)
}

// elicitationID is the id this client knows server's URL elicitation id
// by: one of the gateway's own, remembered with the server's (none is
// remembered for an empty id, which no notification names).
func (cl *client) elicitationID(server, id string) string {
	if id == "" {
		return "mcpdeck-" + rand.Text()
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	key := elicitKey{server, id}
	if i := slices.IndexFunc(cl.elicits, func(e elicitation) bool { return e.key == key }); i >= 0 {
		return cl.elicits[i].client
	}
	mine := "mcpdeck-" + rand.Text()
	if len(cl.elicits) == maxElicits {
		cl.elicits = cl.elicits[1:] // the oldest: its flow was surely abandoned
	}
	cl.elicits = append(cl.elicits, elicitation{key, mine})
	return mine
}

// urlElicitationsRequired is a server's -32042 (URL elicitation
// required, 2025-11-25) as a 2025-11-25 client gets it: each of
// data.elicitations under an id of the gateway's (elicitationID), so
// that the server's notifications/elicitation/complete for it reaches
// this client under that id, as for an elicitation/create. Any other
// error, or one whose data cannot be read, passes as it is.
func (cl *client) urlElicitationsRequired(server string, err error) error {
	var rpc *jsonrpc.Error
	if server == "" || !errors.As(err, &rpc) || rpc.Code != mcp.CodeURLElicitationRequired {
		return err
	}
	var data map[string]json.RawMessage
	var els []map[string]json.RawMessage
	if json.Unmarshal(rpc.Data, &data) != nil || json.Unmarshal(data["elicitations"], &els) != nil || len(els) == 0 {
		return err
	}
	for _, e := range els {
		var id string
		if json.Unmarshal(e["elicitationId"], &id) != nil {
			continue
		}
		e["elicitationId"], _ = json.Marshal(cl.elicitationID(server, id))
	}
	var merr error
	if data["elicitations"], merr = json.Marshal(els); merr != nil {
		return err
	}
	raw, merr := json.Marshal(data)
	if merr != nil {
		return err
	}
	return &jsonrpc.Error{Code: rpc.Code, Message: rpc.Message, Data: raw}
}

// maxElicits bounds the URL elicitations a client is remembered for.
const maxElicits = 64

// elicitKey names a server's URL elicitation.
type elicitKey struct{ server, id string }

// elicitation is a server's URL elicitation as a client was sent it: the
// server's name for it, and the id the client knows it by.
type elicitation struct {
	key    elicitKey
	client string
}

// elicitationComplete passes a server's notifications/elicitation/complete
// to the client its URL elicitation went to, once, under the id that
// client was given; it is dropped when no client was sent that
// elicitation (it went to mcpdeck's own Elicitor, or the client left).
func (g *Gateway) elicitationComplete(e runtime.NotificationReceived) {
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(e.Params, &p) != nil || p.ElicitationID == "" {
		return
	}
	key := elicitKey{e.Server, p.ElicitationID}
	for _, cl := range g.clientList() {
		cl.mu.Lock()
		var mine string
		if i := slices.IndexFunc(cl.elicits, func(e elicitation) bool { return e.key == key }); i >= 0 {
			mine = cl.elicits[i].client
			cl.elicits = slices.Delete(cl.elicits, i, i+1)
		}
		cl.mu.Unlock()
		if mine != "" {
			cl.notify(mcp.NotificationElicitationComplete, map[string]any{"elicitationId": mine})
			return
		}
	}
}
