package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// responder answers, for one client, what a server asks during that
// client's requests (runtime.CallResponder): a legacy client gets a
// server→client request, a modern one an input_required answer to the
// request it is waiting on. One per client, so the runtime can tell that
// all the requests in flight on a server belong to the same client.
type responder struct{ cl *client }

// Elicit asks the client. It passes (runtime.ErrNotAnswered) when the
// client did not declare elicitation, or when the question cannot be tied
// to one of its modern requests; mcpdeck's own Elicitor then answers.
func (r *responder) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	return elicitVia(ctx, r, req)
}

// Roots asks the client for its roots, as Elicit does.
func (r *responder) Roots(ctx context.Context, server string) ([]runtime.Root, error) {
	return rootsVia(ctx, r, server)
}

// asker puts a server's question to whoever answers it: a client (the
// responder), or a task's poller (taskResponder).
type asker interface {
	ask(ctx context.Context, server, method string, params map[string]any) (json.RawMessage, error)
}

// elicitVia asks an elicitation through a and reads the answer.
func elicitVia(ctx context.Context, a asker, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
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

// rootsVia asks roots/list through a and reads the answer.
func rootsVia(ctx context.Context, a asker, server string) ([]runtime.Root, error) {
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
	return roots, nil
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
		if len(modern) != 1 || modern[0].getJob() == nil || !modern[0].env.caps.Has(method) {
			return nil, runtime.ErrNotAnswered
		}
		p, _ := json.Marshal(params)
		return modern[0].getJob().ask(ctx, mcp.InputRequest{Method: method, Params: p})
	}
	cl.mu.Lock()
	declared := (method == mcp.MethodElicit && cl.caps.Elicitation != nil) || (method == mcp.MethodListRoots && cl.caps.Roots != nil)
	cl.mu.Unlock()
	if !declared || cl.conn == nil {
		return nil, runtime.ErrNotAnswered
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
