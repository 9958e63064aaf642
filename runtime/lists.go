package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"mcpdeck/config"
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

// all lists tools, and prompts and resources where declared, all pages.
func (ls *listState) all(ctx context.Context) (lists, error) {
	var kinds []string
	for _, kind := range []string{"tools", "prompts", "resources"} {
		if ls.declares(kind) {
			kinds = append(kinds, kind)
		}
	}
	return ls.list(ctx, kinds)
}

// declares reports whether the server declared a list kind and the
// session lists it; tools are listed whatever it declared (many servers
// forget to), and are the only kind listed under Options.ToolsOnly.
func (ls *listState) declares(kind string) bool {
	s := ls.s
	if kind != "tools" && s.c.opts.ToolsOnly {
		return false
	}
	switch kind {
	case "prompts":
		return s.init.Capabilities.Prompts != nil
	case "resources":
		return s.init.Capabilities.Resources != nil
	}
	return true
}

// list fetches every page of the kinds, from the cache where the server
// said a page stays fresh. The methods are requested together, pipelined
// on the one connection (a server answers each on its own): a server is
// listed in one round trip instead of four. What they bring is put
// together in listing order. The first method to fail cancels the others
// (the server is told), and its error is the one returned.
func (ls *listState) list(ctx context.Context, kinds []string) (lists, error) {
	type fetch struct {
		kind, method string
		part         lists
		got          Listing
		skipped      bool // templates the server does not have
	}
	var fetches []*fetch
	for _, k := range listKinds {
		if slices.Contains(kinds, k.kind) {
			fetches = append(fetches, &fetch{kind: k.kind, method: k.method})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failed struct {
		sync.Once
		err error
	}
	run := func(f *fetch) {
		got, err := ls.paginate(ctx, f.method, &f.part)
		switch {
		case err != nil && f.method == mcp.MethodListResourceTemplates && KindOf(err) == KindProtocol:
			f.skipped = true // templates are optional: a server without them may answer -32601
		case err != nil:
			failed.Do(func() { failed.err = err; cancel() })
		default:
			f.got = got
		}
	}
	var wg sync.WaitGroup
	for _, f := range fetches[1:] {
		wg.Go(func() { run(f) })
	}
	run(fetches[0])
	wg.Wait()

	var l lists
	if failed.err != nil {
		return l, failed.err
	}
	for _, kind := range kinds {
		listing := Listing{FromCache: true}
		for _, f := range fetches {
			if f.kind == kind && !f.skipped {
				l.add(f.part)
				listing = listing.merge(f.got)
			}
		}
		if l.Listed == nil {
			l.Listed = map[string]Listing{}
		}
		l.Listed[kind] = listing
		if kind == "tools" && ls.s.modern() && ls.s.remote {
			ls.setHeaders(l.headers)
		}
		if kind == "tools" {
			ls.s.c.observeTools(ls.s.cfg, l.Tools)
		}
	}
	return l, nil
}

// add appends what one list method brought.
func (l *lists) add(part lists) {
	l.Tools = append(l.Tools, part.Tools...)
	l.Prompts = append(l.Prompts, part.Prompts...)
	l.Resources = append(l.Resources, part.Resources...)
	l.Templates = append(l.Templates, part.Templates...)
	l.Dropped = append(l.Dropped, part.Dropped...)
	if part.headers != nil {
		if l.headers == nil {
			l.headers = map[string][]mcphttp.ParamHeader{}
		}
		maps.Copy(l.headers, part.headers)
	}
}

// observeTools records a listing of a server's tools in the tool
// decisions (ToolPolicy.observe), against what every server lists in the
// latest publication, and says what it pinned.
func (c *Controller) observeTools(cfg config.Server, tools []Tool) {
	id := toolIdentity(cfg)
	before := c.opts.Tools.state().servers[id]
	err := c.opts.Tools.observe(id, cfg.Name, tools, listedTools(c.pub.Load().snap.Tools))
	after := c.opts.Tools.state().servers[id]
	var pinned []string
	if after != nil {
		for _, t := range tools {
			if _, now := after.Pins[t.ServerTool]; now {
				if before == nil {
					pinned = append(pinned, t.ServerTool)
				} else if _, was := before.Pins[t.ServerTool]; !was {
					pinned = append(pinned, t.ServerTool)
				}
			}
		}
	}
	if len(pinned) > 0 || err != nil {
		ev := ToolDecision{EventHeader: EventHeader{Time: time.Now(), Server: cfg.Name}, Action: ToolActionPinned, Tools: pinned}
		if err != nil {
			ev.Err = err.Error()
		}
		c.bus.publish(ev)
	}
}

// addPage decodes one page of method into l, stamping the server's name,
// and returns what the page says besides its items (the next cursor, the
// cache hint). The page is decoded once, into the vocabulary's types, so
// every member the server sent (_meta, annotations, icons) is kept.
func (ls *listState) addPage(method string, raw json.RawMessage, l *lists) (mcp.Page, error) {
	s := ls.s
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
func (ls *listState) paginate(ctx context.Context, method string, l *lists) (Listing, error) {
	s := ls.s
	cursor := ""
	listing := Listing{FromCache: true}
	for range maxPages {
		key := ls.cacheKey(method, cursor)
		cached, fromCache := s.c.lists.get(key, time.Now())
		raw, received := cached.raw, cached.hint.Received
		if !fromCache {
			var err error
			if raw, err = s.chain(ctx, &request{method: method, params: pageParams(cursor)}); err != nil {
				return listing, failedIn(method, err)
			}
			received = time.Now()
		}
		page, err := ls.addPage(method, raw, l)
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
func (ls *listState) refetch(kind string) (lists, error) {
	s := ls.s
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CallTimeout)
	defer cancel()
	ls.invalidate(kind)
	return ls.list(ctx, []string{kind})
}

// refetchChanged relists, on the session's goroutines, every kind announced
// as changed.
func (ls *listState) refetchChanged() {
	s := ls.s
	for _, kind := range ls.takeChanged() {
		if !ls.declares(kind) {
			continue
		}
		s.spawn(func() {
			got, err := ls.refetch(kind)
			if err != nil {
				return // the session is closing, or the server failed to list: keep the old list
			}
			s.c.send(s.ctx, msgListed{name: s.name, gen: s.gen, kind: kind, lists: got, leaks: leaks(got)})
		})
	}
}

// listState is the part of a session that keeps what its lists need
// between fetches: the kinds a list_changed announced and not yet
// refetched (one may arrive while the attempt is still listing, before
// the loop knows the session; the dispatcher adds, the loop takes; mu
// guards them), and the x-mcp-header annotations of the listed tools, by
// tool name (modern HTTP only), written by a listing and read by the
// stream for every tools/call (a sync.Map: read far more than written).
type listState struct {
	s       *session
	mu      sync.Mutex
	pending map[string]bool
	headers sync.Map // string → []mcphttp.ParamHeader
}

// changed records a list kind announced as changed.
func (l *listState) changed(kind string) {
	l.mu.Lock()
	if l.pending == nil {
		l.pending = map[string]bool{}
	}
	l.pending[kind] = true
	l.mu.Unlock()
}

// takeChanged returns and clears the list kinds waiting for a refetch.
func (l *listState) takeChanged() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var kinds []string
	for k := range l.pending {
		kinds = append(kinds, k)
	}
	clear(l.pending)
	return kinds
}

// setHeaders replaces the x-mcp-header annotations the stream looks up.
func (l *listState) setHeaders(h map[string][]mcphttp.ParamHeader) {
	l.headers.Range(func(k, _ any) bool {
		if _, ok := h[k.(string)]; !ok {
			l.headers.Delete(k)
		}
		return true
	})
	for name, hs := range h {
		l.headers.Store(name, hs)
	}
}

// paramHeaders is the modern stream's lookup of a tool's x-mcp-header
// annotations; it runs on the caller's goroutine for every tools/call.
func (l *listState) paramHeaders(tool string) []mcphttp.ParamHeader {
	if v, ok := l.headers.Load(tool); ok {
		return v.([]mcphttp.ParamHeader)
	}
	return nil
}
