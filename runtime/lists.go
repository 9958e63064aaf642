package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// lists are a server's capabilities as listed after initialization.
type lists struct {
	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
	Templates []ResourceTemplate
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

// list fetches every page of one kind into l.
func (s *session) list(ctx context.Context, kind string, l *lists) error {
	for _, k := range listKinds {
		if k.kind != kind {
			continue
		}
		err := s.paginate(ctx, k.method, func(raw json.RawMessage) error {
			return s.addPage(k.member, raw, l)
		})
		if err != nil && k.method == "resources/templates/list" && KindOf(err) == KindProtocol {
			continue // templates are optional: a server without them may answer -32601
		}
		if err != nil {
			return err
		}
	}
	return nil
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
			l.Tools = append(l.Tools, Tool{Server: s.name, ServerTool: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations})
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
// raw result to page.
func (s *session) paginate(ctx context.Context, method string, page func(json.RawMessage) error) error {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := s.conn.Call(ctx, method, params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if err := page(raw); err != nil {
			return fmt.Errorf("%s: decoding the result: %w: %w", method, ErrProtocol, err)
		}
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(raw, &next)
		if next.NextCursor == "" {
			return nil
		}
		if next.NextCursor == cursor {
			return fmt.Errorf("%s: the server returned the same cursor %q twice: %w", method, cursor, ErrProtocol)
		}
		cursor = next.NextCursor
	}
	return fmt.Errorf("%s: more than %d pages; giving up: %w", method, maxPages, ErrProtocol)
}

// refetch relists one kind after a list_changed notification.
func (s *session) refetch(kind string) (lists, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CallTimeout)
	defer cancel()
	var l lists
	return l, s.list(ctx, kind, &l)
}
