package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// resourcesTab lists the resources and resource templates of the
// selected server (a toggles all servers), filterable, a page at a time:
// enter reads a resource or fills in a template, u subscribes. A
// resource updated since it was listed says when.
type resourcesTab struct {
	scopedList
}

// scopedList is what the list tabs over the selected server or all of
// them share: the cursor, the scope (a toggles all servers) and the
// filter; the cursor goes back to the top whenever what is listed
// changes under it.
type scopedList struct {
	base
	cur    cursor
	all    bool
	filter textinput.Model
}

func newScopedList(c *common) scopedList {
	return scopedList{base: base{c: c}, filter: newFilterInput(c.st)}
}

func (l *scopedList) Filter() *textinput.Model { return &l.filter }
func (l *scopedList) FilterChanged()           { l.cur = cursor{} }
func (l *scopedList) ServerChanged() {
	if !l.all {
		l.cur = cursor{}
	}
}

// toggleScope switches between the selected server and all of them.
func (l *scopedList) toggleScope() {
	l.all = !l.all
	l.cur = cursor{}
}

// servers are the servers the tab shows.
func (l *scopedList) servers() []runtime.ServerSnapshot {
	if l.c.snap == nil {
		return nil
	}
	if l.all {
		return l.c.snap.Servers
	}
	if srv, ok := l.c.selected(); ok {
		return []runtime.ServerSnapshot{srv}
	}
	return nil
}

// resItem is one row: a resource or a template.
type resItem struct {
	res  *runtime.Resource
	tmpl *runtime.ResourceTemplate
}

func newResourcesTab(c *common) *resourcesTab {
	return &resourcesTab{newScopedList(c)}
}

func (t *resourcesTab) Title() string { return "Resources" }

func (t *resourcesTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Select, "read"), k.Subscribe, k.Scope, k.Filter}
}

// visible is every resource, then every template, passing the filter.
func (t *resourcesTab) visible() (items []resItem, resources, templates int) {
	m := parseFilter(t.filter.Value())
	servers := t.servers()
	for _, srv := range servers {
		for i := range srv.Resources {
			r := &srv.Resources[i]
			if m.matchItem(srv.Name, r.Name, r.Title, r.URI, r.Description, r.MIMEType) {
				items = append(items, resItem{res: r})
				resources++
			}
		}
	}
	for _, srv := range servers {
		for i := range srv.Templates {
			r := &srv.Templates[i]
			if m.matchItem(srv.Name, r.Name, r.Title, r.URITemplate, r.Description) {
				items = append(items, resItem{tmpl: r})
				templates++
			}
		}
	}
	return items, resources, templates
}

func (t *resourcesTab) Update(msg tea.KeyMsg) tea.Cmd {
	k := t.c.keys
	items, _, _ := t.visible()
	switch {
	case key.Matches(msg, k.Scope):
		t.toggleScope()
		return nil
	case key.Matches(msg, k.Select):
		return actOnSelected(&t.cur, items, t.listRows(), func(it resItem) tea.Msg {
			if it.tmpl != nil {
				return openTemplateMsg{tmpl: *it.tmpl}
			}
			return readIntentMsg{key: resKey{it.res.Server, it.res.URI}}
		})
	case key.Matches(msg, k.Subscribe):
		sel, _ := t.cur.window(len(items), t.listRows())
		if sel < 0 || items[sel].res == nil {
			return nil
		}
		r := items[sel].res
		k := resKey{r.Server, r.URI}
		on := !t.c.subscribed(k)
		return func() tea.Msg { return subscribeIntentMsg{key: k, on: on} }
	}
	navKeys(t.c, msg, &t.cur, len(items), t.listRows())
	return nil
}

// openTemplateMsg asks the root model to open a template's form.
type openTemplateMsg struct{ tmpl runtime.ResourceTemplate }

// subscribed reports whether a resource is subscribed, per the snapshot.
func (c *common) subscribed(k resKey) bool {
	if c.snap == nil {
		return false
	}
	srv, ok := c.snap.Server(k.server)
	return ok && slices.Contains(srv.Subscriptions, k.uri)
}

// listRows is the rows left for items under the summary line.
func (t *resourcesTab) listRows() int { return max(t.h-1, 1) }

func (t *resourcesTab) View() string {
	st := t.c.st
	servers := t.servers()
	if len(servers) == 0 {
		return t.empty("No server selected.")
	}
	items, nres, ntmpl := t.visible()
	scope := "selected server (a: all servers)"
	if t.all {
		scope = "all servers (a: selected server)"
	}
	info := present.Count(nres, "resource", "resources") + " · " + present.Count(ntmpl, "template", "templates") + " · " + scope
	sel, top := t.cur.window(len(items), t.listRows())
	if len(items) > t.listRows() {
		info += fmt.Sprintf(" · %d–%d of %d", top+1, min(top+t.listRows(), len(items)), len(items))
	}
	rows := []string{padRight(st.Dim.Render(info)+filterNote(st, &t.filter), t.w)}
	if len(items) == 0 {
		rows = append(rows, padRight(st.Faint.Render(t.emptyText(servers)), t.w))
		return t.fill(rows)
	}
	nameW := 0
	for _, it := range items {
		nameW = max(nameW, len([]rune(t.name(it))))
	}
	nameW = min(nameW, max(t.w/3, 16))
	for i := top; i < len(items) && len(rows) < t.h; i++ {
		it := items[i]
		mark, uri, extra := " ", "", ""
		if it.res != nil {
			k := resKey{it.res.Server, it.res.URI}
			uri = it.res.URI
			if t.c.subscribed(k) {
				mark = "◉"
			}
			if at, ok := t.c.prim.updated[k]; ok {
				extra = "updated " + t.c.clock(at)
			} else if it.res.MIMEType != "" {
				extra = it.res.MIMEType
			}
		} else {
			mark, uri, extra = "⧉", it.tmpl.URITemplate, "template"
		}
		name := fmt.Sprintf("%-*s", nameW, present.Truncate(t.name(it), nameW))
		text := mark + " " + name + "  " + present.Line(uri)
		if extra != "" {
			text += "  " + present.Line(extra)
		}
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("› "+text, t.w)))
			continue
		}
		rows = append(rows, padRight("  "+st.Info.Render(mark)+" "+st.Accent.Render(name)+"  "+present.Line(uri)+st.Dim.Render("  "+present.Line(extra)), t.w))
	}
	return t.fill(rows)
}

// name is a row's name: the server's too when all servers show.
func (t *resourcesTab) name(it resItem) string {
	server, name := "", ""
	if it.res != nil {
		server, name = it.res.Server, it.res.Name
		if it.res.Title != "" {
			name = it.res.Title
		}
	} else {
		server, name = it.tmpl.Server, it.tmpl.Name
		if it.tmpl.Title != "" {
			name = it.tmpl.Title
		}
	}
	name = present.Line(name)
	if t.all {
		name = server + "/" + name
	}
	return name
}

func (t *resourcesTab) emptyText(servers []runtime.ServerSnapshot) string {
	if t.filter.Value() != "" {
		return "Nothing matches the filter."
	}
	if !t.all {
		srv := servers[0]
		if !srv.State.Live() {
			return "No resources: " + srv.Name + " " + t.c.stateSentence(srv) + "; they are listed once it is ready."
		}
		if held := t.c.heldBack(srv, "resources"); held != "" {
			return "No resources yet: " + held + "."
		}
		if !strings.Contains(string(srv.Capabilities), `"resources"`) {
			return srv.Name + " does not offer resources."
		}
	}
	return "No resources."
}

// promptsTab lists the prompts of the selected server (a: all) with
// their arguments; enter fills them in and gets the prompt.
type promptsTab struct {
	scopedList
}

func newPromptsTab(c *common) *promptsTab {
	return &promptsTab{newScopedList(c)}
}

func (t *promptsTab) Title() string { return "Prompts" }

func (t *promptsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Select, "get"), k.Scope, k.Filter}
}

func (t *promptsTab) visible() []runtime.Prompt {
	m := parseFilter(t.filter.Value())
	var out []runtime.Prompt
	for _, srv := range t.servers() {
		for _, p := range srv.Prompts {
			parts := []string{p.Name, p.Title, p.Description}
			for _, a := range p.Arguments {
				parts = append(parts, a.Name)
			}
			if m.matchItem(srv.Name, parts...) {
				out = append(out, p)
			}
		}
	}
	return out
}

func (t *promptsTab) Update(msg tea.KeyMsg) tea.Cmd {
	k := t.c.keys
	ps := t.visible()
	switch {
	case key.Matches(msg, k.Scope):
		t.toggleScope()
		return nil
	case key.Matches(msg, k.Select):
		return actOnSelected(&t.cur, ps, t.h-1, func(p runtime.Prompt) tea.Msg { return openPromptMsg{p: p} })
	}
	navKeys(t.c, msg, &t.cur, len(ps), t.h-1)
	return nil
}

// openPromptMsg asks the root model to open a prompt's form.
type openPromptMsg struct{ p runtime.Prompt }

func (t *promptsTab) View() string {
	st := t.c.st
	srv, ok := t.c.selected()
	if !ok && !t.all {
		return t.empty("No server selected.")
	}
	ps := t.visible()
	scope := "selected server (a: all servers)"
	if t.all {
		scope = "all servers (a: selected server)"
	}
	info := present.Count(len(ps), "prompt", "prompts") + " · " + scope
	rows := []string{padRight(st.Dim.Render(info)+filterNote(st, &t.filter), t.w)}
	if len(ps) == 0 {
		msg := "No prompts."
		switch {
		case t.filter.Value() != "":
			msg = "Nothing matches the filter."
		case !t.all && !srv.State.Live():
			msg = "No prompts: " + srv.Name + " " + t.c.stateSentence(srv) + "; they are listed once it is ready."
		case !t.all && srv.HeldBack:
			msg = "No prompts yet: " + t.c.heldBack(srv, "prompts") + "."
		case !t.all && !strings.Contains(string(srv.Capabilities), `"prompts"`):
			msg = srv.Name + " does not offer prompts."
		}
		return t.fill(append(rows, padRight(st.Faint.Render(msg), t.w)))
	}
	nameW := 0
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = present.Line(p.Name)
		if t.all {
			names[i] = p.Server + "/" + names[i]
		}
		nameW = max(nameW, len([]rune(names[i])))
	}
	nameW = min(nameW, max(t.w/2, 16))
	sel, top := t.cur.window(len(ps), t.h-1)
	for i := top; i < len(ps) && len(rows) < t.h; i++ {
		p := ps[i]
		var args []string
		for _, a := range p.Arguments {
			n := present.Line(a.Name)
			if a.Required {
				n += "*"
			}
			args = append(args, n)
		}
		argText := "(" + strings.Join(args, ", ") + ")"
		desc := present.OneLine(cmp.Or(p.Title, p.Description), 300)
		name := fmt.Sprintf("%-*s", nameW, present.Truncate(names[i], nameW))
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("› "+name+" "+argText+"  "+desc, t.w)))
			continue
		}
		rows = append(rows, padRight("  "+st.Accent.Render(name)+" "+st.Info.Render(argText)+"  "+st.Dim.Render(desc), t.w))
	}
	return t.fill(rows)
}
