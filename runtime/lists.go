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

// listKinds are the kinds a server's lists come in, in listing order,
// with the method of each; resources come with their templates (both
// refetched on resources/list_changed).
var listKinds = []struct{ kind, method string }{
	{"tools", mcp.MethodListTools},
	{"prompts", mcp.MethodListPrompts},
	{"resources", mcp.MethodListResources},
	{"resources", mcp.MethodListResourceTemplates},
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
		return s.init.Capabilities.Prompts != nil
	case "resources":
		return s.init.Capabilities.Resources != nil
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
		got, err := s.paginate(ctx, k.method, l)
		if err != nil && k.method == mcp.MethodListResourceTemplates && KindOf(err) == KindProtocol {
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

// addPage decodes one page of method into l, stamping the server's name,
// and returns what the page says besides its items (the next cursor, the
// cache hint). The page is decoded once, into the vocabulary's types, so
// every member the server sent (_meta, annotations, icons) is kept.
func (s *session) addPage(method string, raw json.RawMessage, l *lists) (mcp.Page, error) {
	switch method {
	case mcp.MethodListTools:
		var r mcp.ListToolsResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return r.Page, err
		}
		for _, t := range r.Tools {
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
			l.Tools = append(l.Tools, toolOf(s.name, t))
		}
		return r.Page, nil
	case mcp.MethodListPrompts:
		return addItems(raw, func(r *mcp.ListPromptsResult) (mcp.Page, []mcp.Prompt) { return r.Page, r.Prompts },
			func(p mcp.Prompt) { l.Prompts = append(l.Prompts, Prompt{Server: s.name, Prompt: p}) })
	case mcp.MethodListResources:
		return addItems(raw, func(r *mcp.ListResourcesResult) (mcp.Page, []mcp.Resource) { return r.Page, r.Resources },
			func(res mcp.Resource) { l.Resources = append(l.Resources, Resource{Server: s.name, Resource: res}) })
	case mcp.MethodListResourceTemplates:
		return addItems(raw, func(r *mcp.ListResourceTemplatesResult) (mcp.Page, []mcp.ResourceTemplate) {
			return r.Page, r.ResourceTemplates
		},
			func(t mcp.ResourceTemplate) {
				l.Templates = append(l.Templates, ResourceTemplate{Server: s.name, ResourceTemplate: t})
			})
	}
	return mcp.Page{}, fmt.Errorf("%s is not a list", method)
}

// addItems decodes one page of result type R and hands each of its items
// to add.
func addItems[R, T any](raw json.RawMessage, page func(*R) (mcp.Page, []T), add func(T)) (mcp.Page, error) {
	var r R
	if err := json.Unmarshal(raw, &r); err != nil {
		return mcp.Page{}, err
	}
	pg, items := page(&r)
	for _, it := range items {
		add(it)
	}
	return pg, nil
}

// maxPages bounds pagination: a server whose cursors never end must not
// hang the client.
const maxPages = 1000

// paginate calls method until nextCursor is absent, adding each page to
// l. A page the server said stays fresh (ttlMs) comes from the cache
// while it does; the returned Listing says when the pages were fetched
// and until when all of them stay fresh.
func (s *session) paginate(ctx context.Context, method string, l *lists) (Listing, error) {
	cursor := ""
	listing := Listing{FromCache: true}
	for range maxPages {
		key := s.cacheKey(method, cursor)
		cached, fromCache := s.c.lists.get(key, time.Now())
		raw, received := cached.raw, cached.hint.Received
		if !fromCache {
			var err error
			if raw, err = s.conn.Call(ctx, method, s.wire(pageParams(cursor), "", nil)); err != nil {
				return listing, fmt.Errorf("%s: %w", method, err)
			}
			received = time.Now()
		}
		page, err := s.addPage(method, raw, l)
		if err != nil {
			return listing, fmt.Errorf("%s: decoding the result: %w: %w", method, ErrProtocol, err)
		}
		if fromCache {
			listing = listing.merge(Listing{At: received, FreshUntil: cached.hint.Expires(), FromCache: true})
		} else {
			if s.modern() {
				switch t, err := page.ResultType.Check(false); {
				case err != nil:
					return listing, fmt.Errorf("%s: %w: %w", method, ErrProtocol, err)
				case t != mcp.Complete:
					return listing, fmt.Errorf("%s: %w: the server answered %s, which a list request cannot", method, ErrProtocol, t)
				}
			}
			hint := page.Hint(received)
			s.c.lists.put(key, cachedPage{raw: raw, hint: hint})
			listing = listing.merge(Listing{At: received, FreshUntil: hint.Expires()})
		}
		if page.NextCursor == "" {
			return listing, nil
		}
		if page.NextCursor == cursor {
			return listing, fmt.Errorf("%s: the server returned the same cursor %q twice: %w", method, cursor, ErrProtocol)
		}
		cursor = page.NextCursor
	}
	return listing, fmt.Errorf("%s: more than %d pages; giving up: %w", method, maxPages, ErrProtocol)
}

// pageParams are a list request's params for the page at cursor.
func pageParams(cursor string) map[string]any {
	if cursor == "" {
		return nil
	}
	return map[string]any{"cursor": cursor}
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
