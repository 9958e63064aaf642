package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// lists are a server's capabilities as listed after initialization.
type lists struct {
	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
	Templates []ResourceTemplate
	// Dropped are the tools left out of Tools, with why (invalid
	// x-mcp-header annotations on a modern HTTP server).
	Dropped []DroppedTool
	// Listed says, per kind, when the list was fetched and how long it
	// stays fresh.
	Listed map[string]Listing
	// headers are the x-mcp-header annotations of Tools (modern HTTP).
	headers map[string][]mcphttp.ParamHeader
}

// listKinds are the kinds a server's lists come in, in listing order, with
// the method and result member of each; resources come with their
// templates (both refetched on resources/list_changed).
var listKinds = []struct{ kind, method, member string }{
	{"tools", "tools/list", "tools"},
	{"prompts", "prompts/list", "prompts"},
	{"resources", "resources/list", "resources"},
	{"resources", "resources/templates/list", "resourceTemplates"},
}

// listAll lists tools, and prompts and resources where declared, all pages.
func (s *session) listAll(ctx context.Context) (lists, error) {
	var l lists
	for _, kind := range []string{"tools", "prompts", "resources"} {
		if !s.declares(kind) {
			continue
		}
		if err := s.list(ctx, kind, &l); err != nil {
			return l, err
		}
	}
	return l, nil
}

// declares reports whether the server declared a list kind; tools are
// listed whatever it declared (many servers forget to).
func (s *session) declares(kind string) bool {
	switch kind {
	case "prompts":
		return s.init.caps.Prompts != nil
	case "resources":
		return s.init.caps.Resources != nil
	}
	return true
}

// list fetches every page of one kind into l, from the cache where the
// server said a page stays fresh.
func (s *session) list(ctx context.Context, kind string, l *lists) error {
	listing := Listing{FromCache: true}
	for _, k := range listKinds {
		if k.kind != kind {
			continue
		}
		got, err := s.paginate(ctx, k.method, func(raw json.RawMessage) error {
			return s.addPage(k.member, raw, l)
		})
		if err != nil && k.method == "resources/templates/list" && KindOf(err) == KindProtocol {
			continue // templates are optional: a server without them may answer -32601
		}
		if err != nil {
			return err
		}
		listing = listing.merge(got)
	}
	if l.Listed == nil {
		l.Listed = map[string]Listing{}
	}
	l.Listed[kind] = listing
	if kind == "tools" && s.modern() && s.remote {
		s.setHeaders(l.headers)
	}
	return nil
}

// setHeaders replaces the x-mcp-header annotations the stream looks up.
func (s *session) setHeaders(h map[string][]mcphttp.ParamHeader) {
	s.headers.Range(func(k, _ any) bool {
		if _, ok := h[k.(string)]; !ok {
			s.headers.Delete(k)
		}
		return true
	})
	for name, hs := range h {
		s.headers.Store(name, hs)
	}
}

// addPage decodes one page's member into l, stamping the server's name.
func (s *session) addPage(member string, raw json.RawMessage, l *lists) error {
	var page map[string]json.RawMessage
	if err := json.Unmarshal(raw, &page); err != nil {
		return err
	}
	items := page[member]
	if len(items) == 0 || string(items) == "null" {
		return nil
	}
	switch member {
	case "tools":
		var ts []wireTool
		if err := json.Unmarshal(items, &ts); err != nil {
			return err
		}
		for _, t := range ts {
			if s.modern() && s.remote {
				// An HTTP client must drop a tool whose x-mcp-header
				// annotations break the rules: its calls could not carry
				// the headers the server checks.
				hs, err := mcphttp.ToolHeaders(t.InputSchema)
				if err != nil {
					l.Dropped = append(l.Dropped, DroppedTool{Name: t.Name, Reason: err.Error()})
					continue
				}
				if len(hs) > 0 {
					if l.headers == nil {
						l.headers = map[string][]mcphttp.ParamHeader{}
					}
					l.headers[t.Name] = hs
				}
			}
			l.Tools = append(l.Tools, Tool{Server: s.name, ServerTool: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, TaskSupport: t.Execution.TaskSupport})
		}
	case "prompts":
		return appendStamped(items, &l.Prompts, func(p *Prompt) { p.Server = s.name })
	case "resources":
		return appendStamped(items, &l.Resources, func(r *Resource) { r.Server = s.name })
	case "resourceTemplates":
		return appendStamped(items, &l.Templates, func(r *ResourceTemplate) { r.Server = s.name })
	}
	return nil
}

func appendStamped[T any](items json.RawMessage, into *[]T, stamp func(*T)) error {
	var page []T
	if err := json.Unmarshal(items, &page); err != nil {
		return err
	}
	for i := range page {
		stamp(&page[i])
	}
	*into = append(*into, page...)
	return nil
}

// maxPages bounds pagination: a server whose cursors never end must not
// hang the client.
const maxPages = 1000

// paginate calls method until nextCursor is absent, handing each page's
// raw result to page. A page the server said stays fresh (ttlMs) comes
// from the cache while it does; the returned Listing says when the pages
// were fetched and until when all of them stay fresh.
func (s *session) paginate(ctx context.Context, method string, page func(json.RawMessage) error) (Listing, error) {
	cursor := ""
	listing := Listing{FromCache: true}
	for range maxPages {
		raw, got, err := s.listPage(ctx, method, cursor)
		if err != nil {
			return listing, err
		}
		listing = listing.merge(got)
		if err := page(raw); err != nil {
			return listing, fmt.Errorf("%s: decoding the result: %w: %w", method, ErrProtocol, err)
		}
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(raw, &next)
		if next.NextCursor == "" {
			return listing, nil
		}
		if next.NextCursor == cursor {
			return listing, fmt.Errorf("%s: the server returned the same cursor %q twice: %w", method, cursor, ErrProtocol)
		}
		cursor = next.NextCursor
	}
	return listing, fmt.Errorf("%s: more than %d pages; giving up: %w", method, maxPages, ErrProtocol)
}

// listPage fetches one page (or takes it from the cache while fresh).
func (s *session) listPage(ctx context.Context, method, cursor string) (json.RawMessage, Listing, error) {
	key := s.cacheKey(method, cursor)
	now := time.Now()
	if p, ok := s.c.lists.get(key, now); ok {
		return p.raw, Listing{At: p.hint.Received, FreshUntil: p.hint.Expires(), FromCache: true}, nil
	}
	var params map[string]any
	if cursor != "" {
		params = map[string]any{"cursor": cursor}
	}
	raw, err := s.conn.Call(ctx, method, s.wire(params, "", nil))
	if err != nil {
		return nil, Listing{}, fmt.Errorf("%s: %w", method, err)
	}
	received := time.Now()
	if s.modern() {
		switch t, err := mcp.TypeOf(raw, false); {
		case err != nil:
			return nil, Listing{}, fmt.Errorf("%s: %w: %w", method, ErrProtocol, err)
		case t != mcp.Complete:
			return nil, Listing{}, fmt.Errorf("%s: %w: the server answered %s, which a list request cannot", method, ErrProtocol, t)
		}
	}
	hint := mcp.ParseCacheHint(raw, received)
	s.c.lists.put(key, cachedPage{raw: raw, hint: hint})
	return raw, Listing{At: received, FreshUntil: hint.Expires()}, nil
}

// refetch relists one kind after a list_changed notification: the
// notification makes whatever the cache holds of it stale.
func (s *session) refetch(kind string) (lists, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CallTimeout)
	defer cancel()
	s.invalidate(kind)
	var l lists
	return l, s.list(ctx, kind, &l)
}
