package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// RecordedServer is how a suite written from rec reaches its server
// (ServerFor of the server the recording's header names name); the
// header keeps no secrets, so secret tells whether the recorded one had
// some the suite's author must add.
func RecordedServer(rec *record.Recording, name string) (ref ServerRef, secret bool) {
	for _, s := range rec.Header.Servers {
		if s.Name == name {
			return ServerFor(s)
		}
	}
	return ServerRef{Name: name}, false
}

// ServerFor is how a suite reaches s: by name, as the configuration has
// it, or, for an ad-hoc server (--stdio or --url, named "adhoc", which no
// configuration has), inline with its command or URL. An inline server
// carries neither env nor headers: a suite holds no secrets, and secret
// tells whether s had headers the suite's author must add. Both writers
// of suites use it: mcpdeck test --from-recording and the TUI's T.
func ServerFor(s config.Server) (ref ServerRef, secret bool) {
	if s.Source != config.SourceCommandLine {
		return ServerRef{Name: s.Name}, false
	}
	in := &InlineServer{Command: s.Command, Args: s.Args, URL: s.URL}
	if s.URL != "" && !s.TransportInferred {
		in.Transport = string(s.Transport)
	}
	return ServerRef{Name: s.Name, Inline: in}, len(s.Headers) > 0
}

// FromRecording turns the requests a recording holds into steps, each
// expecting what the server answered then: a snapshot of the result, or
// the error it got. server picks the recording's server; it may be empty
// when the recording holds one. It returns the server and the steps.
//
// The requests taken are tools/call, resources/read, prompts/get,
// completion/complete and the listings (their pages joined as a list
// step does). ping and requests the recording holds no answer for
// (cancelled, or cut off by the end of the session) are left out.
func FromRecording(rec *record.Recording, server string) (string, []NewStep, error) {
	all := record.Exchanges(rec, "")
	servers := map[string]bool{}
	for _, x := range all {
		servers[x.Server] = true
	}
	switch {
	case server == "" && len(servers) == 1:
		for s := range servers {
			server = s
		}
	case server == "" && len(servers) == 0:
		return "", nil, fmt.Errorf("the recording holds no request a suite could repeat (tools/call, resources/read, prompts/get, completion/complete, listings)")
	case server == "":
		return "", nil, fmt.Errorf("the recording holds requests to %s: name one with --server", strings.Join(sortedKeys(servers), ", "))
	case !servers[server]:
		return "", nil, fmt.Errorf("the recording holds no request to server %q (it has %s)", server, strings.Join(sortedKeys(servers), ", "))
	}
	var xs []record.Exchange
	for _, x := range all {
		if x.Server == server {
			xs = append(xs, x)
		}
	}
	var steps []NewStep
	for i, x := range xs {
		if x.Answer == nil {
			continue
		}
		var params map[string]any
		if p, err := decodeJSON(x.Params); err == nil {
			params, _ = p.(map[string]any)
		}
		st, ok := stepOf(x, params)
		if !ok {
			continue
		}
		answer, err := decodeAnswer(x.Answer)
		if err != nil {
			return "", nil, fmt.Errorf("the answer to %s (line %d of the recording): %w", x.Method, x.Seq, err)
		}
		switch {
		case answer.err != nil:
			st.Error = answer.err
		case x.Method == "tools/call":
			var res runtime.Result
			if err := json.Unmarshal(answer.result, &res); err != nil {
				return "", nil, fmt.Errorf("the tools/call result at line %d of the recording: %w", x.Seq, err)
			}
			st.IsError = res.IsError
			st.Snapshot = CallDocument(&res)
		case x.Method == "completion/complete":
			var r struct {
				Completion runtime.Completion `json:"completion"`
			}
			if err := json.Unmarshal(answer.result, &r); err != nil {
				return "", nil, fmt.Errorf("the completion/complete result at line %d of the recording: %w", x.Seq, err)
			}
			st.Snapshot = map[string]any{"completion": toDoc(r.Completion)}
		case st.Kind == KindList:
			doc, err := joinPages(x, answer.result, xs[i+1:])
			if err != nil {
				return "", nil, err
			}
			st.Snapshot = doc
		default:
			doc, err := ResultDocument(answer.result)
			if err != nil {
				return "", nil, err
			}
			st.Snapshot = doc
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return "", nil, fmt.Errorf("the recording holds no answered request to %s a suite could repeat", server)
	}
	uniqueIDs(map[string]bool{}, steps)
	return server, steps, nil
}

// stepOf makes the step that repeats a recorded request; ok is false for
// requests a suite does not repeat (ping, a listing's later pages).
func stepOf(x record.Exchange, params map[string]any) (NewStep, bool) {
	str := func(k string) string { s, _ := params[k].(string); return s }
	switch x.Method {
	case "tools/call":
		st := NewStep{ID: x.Tool, Kind: KindCall, Target: x.Tool}
		if a, ok := params["arguments"].(map[string]any); ok && len(a) > 0 {
			st.Args = a
		}
		return st, true
	case "resources/read":
		return NewStep{ID: "read-" + str("uri"), Kind: KindRead, Target: str("uri")}, true
	case "prompts/get":
		st := NewStep{ID: "prompt-" + str("name"), Kind: KindPrompt, Target: str("name")}
		if a, ok := params["arguments"].(map[string]any); ok && len(a) > 0 {
			st.Args = a
		}
		return st, true
	case "completion/complete":
		ref, _ := params["ref"].(map[string]any)
		arg, _ := params["argument"].(map[string]any)
		c := &CompleteSpec{}
		c.Argument, _ = arg["name"].(string)
		c.Value, _ = arg["value"].(string)
		if ref["type"] == "ref/resource" {
			c.Template, _ = ref["uri"].(string)
		} else {
			c.Prompt, _ = ref["name"].(string)
		}
		if cx, ok := params["context"].(map[string]any); ok {
			if args, ok := cx["arguments"].(map[string]any); ok {
				c.Context = map[string]string{}
				for k, v := range args {
					c.Context[k], _ = v.(string)
				}
			}
		}
		return NewStep{ID: "complete-" + c.Argument, Kind: KindComplete, Complete: c}, true
	}
	for what, method := range Listings {
		if x.Method == method && str("cursor") == "" {
			return NewStep{ID: "list-" + what, Kind: KindList, Target: what}, true
		}
	}
	return NewStep{}, false
}

type answer struct {
	result json.RawMessage
	err    *RecordedError
}

func decodeAnswer(raw json.RawMessage) (answer, error) {
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  *RecordedError  `json:"error"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return answer{}, err
	}
	return answer{result: a.Result, err: a.Error}, nil
}

// joinPages joins a recorded listing's pages, following its cursors
// through the requests that came after it, as a list step does live.
func joinPages(first record.Exchange, result json.RawMessage, later []record.Exchange) (any, error) {
	var what string
	for w, m := range Listings {
		if m == first.Method {
			what = w
		}
	}
	field := listItems[what]
	items := []any{}
	for {
		doc, err := ResultDocument(result)
		if err != nil {
			return nil, err
		}
		m, _ := doc.(map[string]any)
		list, _ := m[field].([]any)
		items = append(items, list...)
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(result, &page)
		if page.NextCursor == "" {
			break
		}
		found := false
		for _, x := range later {
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(x.Params, &p)
			if x.Method == first.Method && p.Cursor == page.NextCursor && x.Answer != nil {
				a, err := decodeAnswer(x.Answer)
				if err != nil || a.err != nil {
					return nil, fmt.Errorf("%s: the page after cursor %q has no result in the recording", first.Method, page.NextCursor)
				}
				result, found = a.result, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: the recording holds the first page only (cursor %q was not followed); record the whole listing", first.Method, page.NextCursor)
		}
	}
	return map[string]any{field: items}, nil
}

// SaveSnapshots stores the snapshots of new steps written into the suite
// at path (--from-recording: the suite's text was written whole).
func SaveSnapshots(s *Suite, steps []NewStep) error {
	snaps := OpenSnapshots(s)
	for i := range steps {
		if steps[i].Snapshot != nil {
			if err := snaps.put(steps[i].ID, steps[i].Snapshot); err != nil {
				return err
			}
		}
	}
	return snaps.Save(false)
}
