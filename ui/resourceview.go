package ui

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// resKey names a resource: its server and URI.
type resKey struct{ server, uri string }

// primState is what the UI learned about resources beyond the snapshot:
// when each was last updated (notifications/resources/updated) and its
// last read, so a subscribed resource's viewer shows the new contents.
type primState struct {
	updated map[resKey]time.Time
	reads   map[resKey]resourceRead
}

func newPrimState() *primState {
	return &primState{updated: map[resKey]time.Time{}, reads: map[resKey]resourceRead{}}
}

// resourceRead is one resources/read: its result or its error.
type resourceRead struct {
	at   time.Time
	raw  json.RawMessage
	err  error
	seq  int // reads of this resource so far
	auto bool
}

// readDoneMsg is a finished resources/read. auto marks a re-read after an
// update, which refreshes an open viewer but opens none.
type readDoneMsg struct {
	key  resKey
	raw  json.RawMessage
	err  error
	auto bool
}

// readCmd reads a resource.
func (m *Model) readCmd(k resKey, auto bool) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	return func() tea.Msg {
		raw, err := rt.ReadResource(ctx, k.server, k.uri)
		return readDoneMsg{key: k, raw: raw, err: err, auto: auto}
	}
}

// openResource shows the viewer for a resource, over the modal that asked
// for it when there is one (see openOver), and reads it.
func (m *Model) openResource(k resKey, over modal) tea.Cmd {
	m.openOver(over, newResourceViewer(m.c, k))
	m.setStatus(statusInfo, "reading "+present.Line(k.uri)+"…")
	return m.readCmd(k, false)
}

// resourceContent is one item of a resources/read result.
type resourceContent struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     string  `json:"blob"`
}

func decodeContents(raw json.RawMessage) ([]resourceContent, error) {
	var r struct {
		Contents []resourceContent `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("the result is not a resources/read result: %w", err)
	}
	return r.Contents, nil
}

// resourceViewer shows a resource's contents: text scrollable, JSON
// pretty-printed, binary as its size and type (s saves the bytes). A
// subscribed resource is read again on every update while it is open.
type resourceViewer struct {
	viewer
	key resKey
}

func newResourceViewer(c *common, k resKey) *resourceViewer {
	return &resourceViewer{viewer: newViewer(c), key: k}
}

func (v *resourceViewer) SetSize(w, h int) {
	v.setSize(w, h, 4)
	v.refresh()
}

// refresh renders the last read into the pager.
func (v *resourceViewer) refresh() {
	if v.w == 0 {
		return
	}
	v.p.setLines(v.lines(v.w - 4))
}

func (v *resourceViewer) subscribed() bool {
	srv, ok := v.c.snap.Server(v.key.server)
	if !ok {
		return false
	}
	for _, u := range srv.Subscriptions {
		if u == v.key.uri {
			return true
		}
	}
	return false
}

func (v *resourceViewer) Help() []key.Binding { return v.help(v.c.keys.Subscribe) }

// subscribeIntentMsg asks the root model to switch a subscription.
type subscribeIntentMsg struct {
	key resKey
	on  bool
}

func (v *resourceViewer) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	return v.update(v, msg, "resource", v.save, func(msg tea.KeyMsg) (tea.Cmd, bool) {
		if !key.Matches(msg, v.c.keys.Subscribe) {
			return nil, false
		}
		intent := subscribeIntentMsg{key: v.key, on: !v.subscribed()}
		return func() tea.Msg { return intent }, true
	})
}

// copyTextMsg asks the root model to copy text to the clipboard.
type copyTextMsg struct{ what, text string }

// save writes the contents: a single binary item as its bytes, anything
// else as the resources/read result.
func (v *resourceViewer) save() tea.Cmd {
	rd, ok := v.c.prim.reads[v.key]
	if !ok || rd.err != nil {
		return nil
	}
	items, err := decodeContents(rd.raw)
	if err == nil && len(items) == 1 && items[0].Blob != "" {
		data, err := base64.StdEncoding.DecodeString(items[0].Blob)
		if err == nil {
			return saveBytes("resource", v.key.server, extension(items[0].MIMEType), data)
		}
	}
	return saveCmd("resource", v.key.server, append([]byte(present.PrettyJSON(rd.raw)), '\n'))
}

func (v *resourceViewer) lines(w int) []string {
	st := v.c.st
	rd, ok := v.c.prim.reads[v.key]
	if !ok {
		return []string{st.Dim.Render("reading…")}
	}
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	head := "read " + v.c.clock(rd.at)
	if rd.seq > 1 {
		head += fmt.Sprintf(" (%s)", present.Count(rd.seq, "read", "reads"))
	}
	if v.subscribed() {
		head += " · subscribed: updates re-read it"
	}
	if at, ok := v.c.prim.updated[v.key]; ok {
		head += " · updated " + v.c.clock(at)
	}
	add(st.Dim.Render(present.Truncate(head, w)), "")
	if rd.err != nil {
		add(st.Error.Render("✗ the read failed"))
		ei := present.InfoOf(rd.err)
		for _, l := range wrap(present.Line(ei.Message), w) {
			add(st.Error.Render(l))
		}
		if ei.Code != 0 {
			add(st.Dim.Render(present.Line(fmt.Sprintf("code %d · %s · %s", ei.Code, ei.Server, ei.Method))))
		}
		if h := present.Hint(ei, present.TUI); h != "" {
			add("")
			for i, l := range wrap(present.Line(h), w-6) {
				if i == 0 {
					add(st.Warning.Render("hint: ") + l)
				} else {
					add("      " + l)
				}
			}
		}
		return out
	}
	items, err := decodeContents(rd.raw)
	if err != nil {
		add(st.Error.Render(present.Line(err.Error())))
		return out
	}
	if len(items) == 0 {
		add(st.Dim.Render("(no contents)"))
	}
	for i, it := range items {
		if len(items) > 1 || it.URI != v.key.uri {
			h := fmt.Sprintf("── %d: %s ", i+1, present.Line(it.URI))
			add(st.Faint.Render(h + strings.Repeat("─", max(w-len([]rune(h)), 0))))
		}
		out = append(out, contentLines(st, it, w)...)
	}
	return out
}

// contentLines renders one content item.
func contentLines(st styles.Styles, it resourceContent, w int) []string {
	var out []string
	mime := present.OrDash(present.Line(it.MIMEType))
	switch {
	case it.Text != nil:
		text := *it.Text
		if isJSON(it.MIMEType, text) {
			text = present.PrettyJSON([]byte(text))
		} else {
			text = present.Block(text)
		}
		out = append(out, st.Dim.Render(fmt.Sprintf("%s · %s", mime, present.Size(len(*it.Text)))))
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			out = append(out, wrap(l, w)...)
		}
	case it.Blob != "":
		out = append(out, st.Info.Render(fmt.Sprintf("binary · %s · %s", mime, present.Size(decodedSize(it.Blob)))),
			st.Dim.Render("s saves it to a file"))
	default:
		out = append(out, st.Dim.Render("(empty: neither text nor blob)"))
	}
	return out
}

// isJSON reports whether text is to be shown as JSON: its type says so,
// or it parses as an object or array.
func isJSON(mime, text string) bool {
	t := strings.TrimSpace(text)
	if strings.Contains(mime, "json") {
		return json.Valid([]byte(t))
	}
	return (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}

func (v *resourceViewer) View() string {
	title := v.key.server + " › " + present.Line(v.key.uri)
	if v.subscribed() {
		title = "◉ " + title
	}
	return v.view(present.Truncate(title, v.w-20))
}
