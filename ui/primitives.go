package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// The root model's share of resources, prompts, completions, log levels
// and roots: intents from tabs and modals become runtime calls in
// commands, and their results come back here.

type subscribedMsg struct {
	key resKey
	on  bool
	err error
}

type logLevelIntentMsg struct{ server, level string }

type logLevelDoneMsg struct {
	server, level string
	err           error
}

type rootsIntentMsg struct {
	server string
	dirs   []string
}

type rootsDoneMsg struct {
	server string
	dirs   []string
	err    error
}

// handlePrimitive applies the messages of this file; it reports whether
// msg was one of them.
func (m *Model) handlePrimitive(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case readIntentMsg:
		return m.openResource(msg.key, nil), true
	case readDoneMsg:
		m.readDone(msg)
	case subscribeIntentMsg:
		rt, ctx, k, on := m.rt, m.ctx(), msg.key, msg.on
		return func() tea.Msg {
			var err error
			if on {
				err = rt.SubscribeResource(ctx, k.server, k.uri)
			} else {
				err = rt.UnsubscribeResource(ctx, k.server, k.uri)
			}
			return subscribedMsg{key: k, on: on, err: err}
		}, true
	case subscribedMsg:
		uri := present.Line(msg.key.uri)
		switch {
		case msg.err != nil:
			m.setStatus(statusError, fmt.Sprintf("subscribing to %s failed: %s", uri, errText(msg.err)))
		case msg.on:
			m.setStatus(statusInfo, "subscribed to "+uri+": updates show in the Notifications tab and re-read it")
		default:
			m.setStatus(statusInfo, "unsubscribed from "+uri)
		}
		m.refreshViewer(msg.key)
	case openTemplateMsg:
		tf := newTemplateForm(m.c, msg.tmpl)
		m.openModal(tf)
		return tf.f.ask(m.rt, m), true
	case openPromptMsg:
		pf := newPromptForm(m.c, msg.p, m.lastPrompt[msg.p.Server+"\x00"+msg.p.Name])
		m.openModal(pf)
		return pf.f.ask(m.rt, m), true
	case formCompleteMsg:
		return msg.f.ask(m.rt, m), true
	case completeMsg:
		msg.form.completed(msg)
	case promptIntentMsg:
		m.lastPrompt[msg.p.Server+"\x00"+msg.p.Name] = msg.args
		return m.getPromptCmd(msg.p, msg.args), true
	case promptDoneMsg:
		m.promptDone(msg)
	case openLinkMsg:
		return m.openLink(msg), true
	case chooseLinkMsg:
		items := make([]string, len(msg.links))
		for i, l := range msg.links {
			items[i] = l.URI
			if l.Resource != nil {
				items[i] = l.Resource.URI + " (embedded)"
			}
		}
		links, server, from := msg.links, msg.server, msg.from
		// Over the viewer: picking closes the chooser, which shows the
		// viewer again, and the resource then opens over the viewer too.
		m.openOver(from, newChooser(m.c, "Open which resource?", "", items, 0, func(i int) tea.Msg {
			return openLinkMsg{server: server, c: links[i], from: from}
		}))
	case openDetailMsg:
		return m.openToolDetail(msg.tool), true
	case appDetailMsg:
		m.showAppDetail(msg)
	case openAppMsg:
		return m.openApp(msg.done, msg.from), true
	case appOpenedMsg:
		m.appOpened(msg)
	case appNoticeMsg:
		m.appNotice(msg.n)
	case copyTextMsg:
		return m.copyCmd(msg.what, msg.text), true
	case copyURLMsg:
		return m.copyCmd("authorization URL", msg.url), true
	case copiedMsg:
		m.handleCopied(msg)
	case logLevelIntentMsg:
		rt, ctx := m.rt, m.ctx()
		return func() tea.Msg {
			return logLevelDoneMsg{server: msg.server, level: msg.level, err: rt.SetLogLevel(ctx, msg.server, msg.level)}
		}, true
	case logLevelDoneMsg:
		if msg.err != nil {
			m.setStatus(statusError, errAbout("setting "+msg.server+"'s log level failed", msg.server, msg.err))
		} else {
			m.setStatus(statusInfo, fmt.Sprintf("%s now logs at %s and above (kept across reconnects)", msg.server, msg.level))
		}
	case rootsIntentMsg:
		rt, ctx := m.rt, m.ctx()
		return func() tea.Msg {
			return rootsDoneMsg{server: msg.server, dirs: msg.dirs, err: rt.SetRoots(ctx, msg.server, msg.dirs)}
		}, true
	case rootsDoneMsg:
		switch {
		case msg.err != nil:
			m.setStatus(statusError, errAbout("changing "+msg.server+"'s roots failed", msg.server, msg.err))
		case len(msg.dirs) == 0:
			m.setStatus(statusInfo, msg.server+" is offered no roots now: the roots capability is withdrawn (it reconnects if it is running)")
		default:
			m.setStatus(statusInfo, fmt.Sprintf("%s is offered %s now (told with notifications/roots/list_changed)", msg.server, present.Count(len(msg.dirs), "root", "roots")))
		}
	default:
		return nil, false
	}
	return nil, true
}

// readDone keeps a read and shows it in its viewer.
func (m *Model) readDone(msg readDoneMsg) {
	prev := m.c.prim.reads[msg.key]
	m.c.prim.reads[msg.key] = resourceRead{at: m.c.now(), raw: msg.raw, err: msg.err, seq: prev.seq + 1, auto: msg.auto}
	m.refreshViewer(msg.key)
	uri := present.Line(msg.key.uri)
	switch {
	case msg.err != nil && !msg.auto:
		m.setStatus(statusError, "reading "+uri+" failed: "+errText(msg.err))
	case msg.auto:
		m.setStatus(statusInfo, uri+" changed and was read again")
	default:
		m.setStatus(statusInfo, "read "+uri)
	}
}

// refreshViewer redraws the open resource viewers of k, in front or not.
func (m *Model) refreshViewer(k resKey) {
	for _, md := range m.openModals() {
		if v, ok := md.(*resourceViewer); ok && v.key == k {
			v.refresh()
		}
	}
}

// resourceUpdated notes an update; a subscribed resource is read again.
func (m *Model) resourceUpdated(e runtime.ResourceUpdated) tea.Cmd {
	k := resKey{e.Server, e.URI}
	m.c.prim.updated[k] = e.Time
	m.refreshViewer(k)
	if m.c.subscribed(k) && m.opts.Replay == nil {
		return m.readCmd(k, true)
	}
	return nil
}

// openLink shows a resource a tool result linked (read it) or embedded
// (shown as it came), over the viewer of the result: closing it returns
// to the result.
func (m *Model) openLink(msg openLinkMsg) tea.Cmd {
	c := msg.c
	if c.Type == "resource" && c.Resource != nil {
		e := c.Resource
		item := map[string]any{"uri": e.URI, "mimeType": e.MIMEType}
		if e.Blob != "" {
			item["blob"] = e.Blob
		} else {
			item["text"] = e.Text
		}
		raw, _ := json.Marshal(map[string]any{"contents": []any{item}})
		k := resKey{msg.server, e.URI}
		m.c.prim.reads[k] = resourceRead{at: m.c.now(), raw: raw, seq: m.c.prim.reads[k].seq + 1}
		m.openOver(msg.from, newResourceViewer(m.c, k))
		return nil
	}
	return m.openResource(resKey{msg.server, c.URI}, msg.from)
}

// promptDone shows a prompt's messages, or why it failed.
func (m *Model) promptDone(msg promptDoneMsg) {
	title := "Prompt " + msg.p.Server + " › " + present.Line(msg.p.Name)
	if msg.err != nil {
		m.setStatus(statusError, "getting the prompt "+present.Line(msg.p.Name)+" failed: "+errText(msg.err))
		err := msg.err
		m.openModal(newTextViewer(m.c, title, "prompt", msg.p.Server, func(w int) []string {
			out := []string{m.c.st.Error.Render("✗ prompts/get failed")}
			for _, l := range wrap(present.Line(present.ErrorText(err, present.TUI)), w) {
				out = append(out, m.c.st.Error.Render(l))
			}
			return out
		}))
		return
	}
	m.setStatus(statusInfo, "got the prompt "+present.Line(msg.p.Name))
	raw := msg.raw
	m.openModal(newTextViewer(m.c, title, "prompt", msg.p.Server, func(w int) []string { return promptLines(m.c, raw, w) }))
}

// chooseLogLevel opens the log level chooser for the selected server.
func (m *Model) chooseLogLevel() tea.Cmd {
	srv, ok := m.c.selected()
	if !ok {
		return nil
	}
	switch {
	case !srv.State.Live():
		m.setStatus(statusWarn, srv.Name+" "+m.c.stateSentence(srv)+": its log level is set once it is ready (configure logLevel to have it from the start)")
		return nil
	case !strings.Contains(string(srv.Capabilities), `"logging"`):
		m.setStatus(statusWarn, srv.Name+" does not declare logging: it has no log level to set")
		return nil
	}
	levels := runtime.LogLevels
	name := srv.Name
	note := "now: " + present.OrDash(srv.LogLevel) + "; messages below the level are not sent"
	m.openModal(newChooser(m.c, "Log level of "+srv.Name, note, levels, slices.Index(levels, srv.LogLevel), func(i int) tea.Msg {
		return logLevelIntentMsg{server: name, level: levels[i]}
	}))
	return nil
}
