package ui

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// resultViewer shows a tool result, or why the call failed, scrollable
// and searchable. o opens a resource the result links to or embeds in
// the resource viewer; y copies the result, s saves it.
type resultViewer struct {
	viewer
	done callDoneMsg
}

func newResultViewer(c *common, done callDoneMsg) *resultViewer {
	return &resultViewer{viewer: newViewer(c), done: done}
}

func (r *resultViewer) SetSize(w, h int) {
	r.setSize(w, h, 3)
	r.p.setLines(r.lines(r.w - 4))
}

func (r *resultViewer) Help() []key.Binding {
	k := r.c.keys
	var b []key.Binding
	if hasApp(r.done) {
		b = append(b, k.OpenApp)
	}
	if len(r.links()) > 0 {
		b = append(b, k.OpenLink)
	}
	return r.help(b...)
}

// links are the resources the result links to or embeds, in order.
func (r *resultViewer) links() []runtime.Content {
	if r.done.res == nil {
		return nil
	}
	var out []runtime.Content
	for _, c := range r.done.res.Content {
		if (c.Type == "resource_link" && c.URI != "") || (c.Type == "resource" && c.Resource != nil) {
			out = append(out, c)
		}
	}
	return out
}

// openLinkMsg asks the root model to open a linked or embedded resource,
// over the viewer that showed the link (from), so closing it returns there.
type openLinkMsg struct {
	server string
	c      runtime.Content
	from   modal
}

func (r *resultViewer) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	save := func() tea.Cmd { return saveResultOrBlock(r, r.done) } // record_export.go
	return r.update(r, msg, "result", save, r.own)
}

// own answers the keys only a result has: open its app, open a link.
func (r *resultViewer) own(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := r.c.keys
	switch {
	case key.Matches(msg, k.OpenApp) && hasApp(r.done):
		done := r.done
		return func() tea.Msg { return openAppMsg{done: done, from: r} }, true
	case key.Matches(msg, k.OpenLink):
		links := r.links()
		if len(links) == 0 {
			return nil, true
		}
		server := r.done.tool.Server
		if len(links) == 1 {
			return func() tea.Msg { return openLinkMsg{server: server, c: links[0], from: r} }, true
		}
		return func() tea.Msg { return chooseLinkMsg{server: server, links: links, from: r} }, true
	}
	return nil, false
}

// chooseLinkMsg asks the root model to let the person pick one of links,
// in a chooser over the viewer that showed them (from).
type chooseLinkMsg struct {
	server string
	links  []runtime.Content
	from   modal
}

// lines renders the result: errors first, then each content block, then
// structured content, then the truncation marker.
func (r *resultViewer) lines(w int) []string {
	st := r.c.st
	d := r.done
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	para := func(text string) {
		for _, l := range strings.Split(present.Block(text), "\n") {
			add(wrap(l, w)...)
		}
	}
	if d.err != nil {
		add(st.Error.Render("✗ the call failed"))
		// The error's data however it is wrapped (a call returns a
		// *CallError), as every face finds it.
		ei := present.InfoOf(d.err)
		para(ei.Message)
		if ei.Code != 0 {
			add(st.Dim.Render(present.Line(fmt.Sprintf("code %d · %s · %s", ei.Code, ei.Server, ei.Method))))
		}
		if len(ei.Data) > 0 {
			add(st.Dim.Render("data:"))
			para(present.PrettyJSON(ei.Data))
		}
		if h := present.Hint(ei, present.TUI); h != "" {
			add("", st.Warning.Render("hint: ")+present.Line(h))
		}
		return out
	}
	res := d.res
	if res == nil {
		return []string{st.Dim.Render("The call returned no result.")}
	}
	head := fmt.Sprintf("request %d · %s", res.RequestID, present.Latency(res.Duration))
	if res.IsError {
		add(st.Error.Render("✗ the tool reported an error (isError)")+st.Dim.Render(" · "+head), "")
	} else {
		add(st.Success.Render("✓ ok")+st.Dim.Render(" · "+head), "")
	}
	body := st.Text
	if res.IsError {
		body = st.Error
	}
	for i, c := range res.Content {
		head := fmt.Sprintf("── content %d: %s ", i+1, present.Line(c.Type))
		add(st.Faint.Render(head + strings.Repeat("─", max(w-len([]rune(head)), 0))))
		add(blockLines(st, c, w, body)...)
	}
	if len(res.StructuredContent) > 0 {
		add(st.Faint.Render("── structuredContent " + strings.Repeat("─", max(w-len([]rune("── structuredContent ")), 0))))
		for _, l := range strings.Split(present.PrettyJSON(res.StructuredContent), "\n") {
			add(present.Truncate(l, w))
		}
		if res.StructuredError != "" {
			add(st.Warning.Render("does not match the outputSchema: " + present.Line(res.StructuredError)))
		}
	}
	if len(res.Meta) > 0 {
		add(st.Faint.Render("── _meta " + strings.Repeat("─", max(w-len([]rune("── _meta ")), 0))))
		add(metaLines(st, res.Meta, w)...)
	}
	if res.Truncated {
		add("", st.Warning.Render(fmt.Sprintf("… truncated: the result was %s; only the first part is shown", present.Size(int(res.OriginalSize)))))
	}
	if len(res.Content) == 0 && len(res.StructuredContent) == 0 {
		add(st.Dim.Render("(empty result)"))
	}
	if n := len(r.links()); n > 0 {
		add("", st.Dim.Render("o opens the linked "+present.Plural(n, "resource", "resources")))
	}
	return out
}

// blockLines renders one content block (tool results and prompt
// messages alike), text in the body style.
func blockLines(st styles.Styles, c runtime.Content, w int, body lipgloss.Style) []string {
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	switch c.Type {
	case "text":
		for _, l := range strings.Split(present.Block(c.Text), "\n") {
			for _, wl := range wrap(l, w) {
				add(body.Render(wl))
			}
		}
	case "image", "audio":
		add(st.Info.Render(fmt.Sprintf("[%s] %s, %s", present.Line(c.Type), present.OrDash(present.Line(c.MIMEType)), present.Size(decodedSize(c.Data)))))
	case "resource_link":
		add(st.Info.Render("[link] ") + present.Line(c.Name) + " " + st.Dim.Render(present.Line(c.URI)))
	case "resource":
		if e := c.Resource; e != nil {
			add(st.Info.Render("[resource] ") + present.Line(e.URI) + st.Dim.Render(" "+present.Line(e.MIMEType)))
			if e.Text != "" {
				for _, l := range strings.Split(present.Block(e.Text), "\n") {
					add(wrap(l, w)...)
				}
			} else if e.Blob != "" {
				add(st.Dim.Render("binary, " + present.Size(decodedSize(e.Blob))))
			}
		}
	default:
		add(st.Dim.Render("(unknown content type)"))
	}
	// A block's annotations (audience, priority) and _meta, compact: one
	// dim line each.
	if len(c.Annotations) > 0 {
		add(st.Dim.Render(present.Truncate("annotations "+blockMeta(c.Annotations), w)))
	}
	if len(c.Meta) > 0 {
		add(st.Dim.Render(present.Truncate("_meta "+blockMeta(c.Meta), w)))
	}
	return out
}

// blockMeta is a block's annotations or _meta on one line: key=value,
// the values compact JSON.
func blockMeta(raw []byte) string {
	members := present.Members(raw)
	if members == nil {
		return present.CompactJSON(raw)
	}
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = m.Key + "=" + m.Value
	}
	return strings.Join(parts, " ")
}

func (r *resultViewer) View() string {
	d := r.done
	return r.view("Result of " + d.tool.Server + " › " + present.Line(d.tool.ServerTool))
}

// decodedSize is the size of base64 data once decoded.
func decodedSize(data string) int {
	return base64.StdEncoding.DecodedLen(len(data)) - strings.Count(data[max(len(data)-2, 0):], "=")
}

// textViewer is a titled, scrollable, searchable text: a prompt's
// messages, a tool's details. y copies it and s saves it.
type textViewer struct {
	viewer
	title  string
	what   string // for copy and save: "prompt", "tool"
	server string
	render func(w int) []string
}

func newTextViewer(c *common, title, what, server string, render func(w int) []string) *textViewer {
	return &textViewer{viewer: newViewer(c), title: title, what: what, server: server, render: render}
}

func (v *textViewer) SetSize(w, h int) {
	v.setSize(w, h, 3)
	v.p.setLines(v.render(v.w - 4))
}

func (v *textViewer) Help() []key.Binding { return v.help() }

func (v *textViewer) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	save := func() tea.Cmd { return saveBytes(v.what, v.server, ".txt", []byte(v.p.text())) }
	return v.update(v, msg, v.what, save, nil)
}

func (v *textViewer) View() string { return v.view(v.title) }
