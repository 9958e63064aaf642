package ui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/runtime/apphost"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/present"
)

// Opening a tool's MCP App from its result: a (the OpenApp key) in the
// result viewer hands the call to the app host (runtime/apphost), which
// reads the tool's ui:// resource and serves it behind a one-time
// loopback link. The link goes to the browser ($BROWSER, as a login's
// does) and shows in a modal, where y copies it for a browser on another
// machine (forward the port). What the app then does reaches the status
// line (AppNotices); every bridge message shows in the Traffic tab.

// AppHost opens apps; *apphost.Host is one.
type AppHost interface {
	Open(ctx context.Context, req apphost.Request) (*apphost.App, error)
}

var _ AppHost = (*apphost.Host)(nil)

// AppNotices carries the app host's notices (give Report as
// apphost.Options.OnNotice) to a running program, like LoginURLs.
type AppNotices struct{ programLink }

// Report hands a notice to the program, if one is attached.
func (a *AppNotices) Report(n apphost.Notice) {
	if a != nil {
		a.deliver(appNoticeMsg{n})
	}
}

type appNoticeMsg struct{ n apphost.Notice }

// openAppMsg asks the root model to open the app of a call's result,
// from the viewer that shows it (the link's modal opens over it).
type openAppMsg struct {
	done callDoneMsg
	from modal
}

// appOpenedMsg is the end of opening an app.
type appOpenedMsg struct {
	from    modal
	app     *apphost.App
	err     error
	browser error // starting the browser failed: the link is in the modal
}

// hasApp reports whether a call's tool has an app to open.
func hasApp(d callDoneMsg) bool {
	ui, _ := mcp.ToolUIOf(d.tool.Meta)
	return ui.HasApp() && d.res != nil
}

// appTag marks a tool with an app in the Tools tab: present.AppMark in
// brackets after the name.
func appTag(t runtime.Tool) string {
	if m := present.AppMark(t); m != "" {
		return " [" + m + "]"
	}
	return ""
}

// openApp opens the app of d in a command.
func (m *Model) openApp(d callDoneMsg, from modal) tea.Cmd {
	if m.opts.Apps == nil {
		m.setStatus(statusWarn, "MCP Apps cannot be opened in this session (mcpdeck app open SERVER TOOL opens one)")
		return nil
	}
	if !hasApp(d) {
		m.setStatus(statusWarn, d.tool.ServerTool+" has no MCP App (_meta.ui.resourceUri)")
		return nil
	}
	m.setStatus(statusInfo, "opening the app of "+present.Line(d.tool.ServerTool)+"…")
	host, ctx, open := m.opts.Apps, m.ctx(), m.opts.OpenURL
	req := apphost.Request{Server: d.tool.Server, Tool: d.tool.ServerTool, Arguments: d.args, Result: d.res}
	return func() tea.Msg {
		app, err := host.Open(ctx, req)
		if err != nil {
			return appOpenedMsg{from: from, err: err}
		}
		return appOpenedMsg{from: from, app: app, browser: open(app.URL)}
	}
}

// appOpened shows the link of an opened app, or why it did not open.
func (m *Model) appOpened(msg appOpenedMsg) {
	if msg.err != nil {
		m.setStatus(statusError, "the app did not open: "+present.Line(msg.err.Error()))
		return
	}
	m.openOver(msg.from, &appLinkModal{c: m.c, app: msg.app, browser: msg.browser})
}

// appNotice puts what an open app did on the status line.
func (m *Model) appNotice(n apphost.Notice) {
	who := "app of " + present.Line(n.Tool) + ": "
	switch n.Kind {
	case apphost.NoticePageOpened:
		m.setStatus(statusInfo, who+"its page is open")
	case apphost.NoticeInitialized:
		m.setStatus(statusInfo, who+present.Line(n.Text)+" initialized and has the result")
	case apphost.NoticeLink:
		m.setStatus(statusWarn, who+"asks to open "+present.Line(n.URL)+": choose Open or Dismiss in its page")
	case apphost.NoticeLinkOpened:
		m.setStatus(statusInfo, who+"opened "+present.Line(n.URL))
	case apphost.NoticeLinkRefused:
		m.setStatus(statusInfo, who+"did not open "+present.Line(n.URL)+": "+present.Line(n.Text))
	case apphost.NoticeLog:
		m.setStatus(statusInfo, who+"log "+present.Line(n.Text))
	default:
		m.setStatus(statusWarn, who+present.Line(n.Text))
	}
}

// appLinkModal shows an opened app's one-time link.
type appLinkModal struct {
	c       *common
	app     *apphost.App
	browser error
	w, h    int
}

func (a *appLinkModal) SetSize(w, h int) { a.w, a.h = min(max(w-6, 40), 100), min(h, 16) }

func (a *appLinkModal) Help() []key.Binding {
	k := a.c.keys
	return []key.Binding{keysRelabel(k.Copy, "copy the link"), k.Close}
}

func (a *appLinkModal) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := a.c.keys
	switch {
	case key.Matches(msg, k.Copy):
		url := a.app.URL
		return a, func() tea.Msg { return copyTextMsg{what: "app link", text: url} }
	case key.Matches(msg, k.Close), key.Matches(msg, k.Back):
		return nil, nil
	}
	return a, nil
}

func (a *appLinkModal) View() string {
	st := a.c.st
	inner := a.w - 4
	body := []string{st.Text.Render("The app of " + present.Line(a.app.Tool) + " (" + present.Line(a.app.ResourceURI) + ") is served at:")}
	for _, line := range chunk(a.app.URL, inner) {
		body = append(body, st.Accent.Render(line))
	}
	body = append(body, "")
	if a.browser != nil {
		body = append(body, st.Warning.Render("No browser opened ("+present.Line(a.browser.Error())+"): open the link yourself (y copies it)."))
	} else {
		body = append(body, st.Dim.Render("Opened in the browser; y copies the link for another one."))
	}
	body = append(body,
		st.Dim.Render("The link opens once. Over SSH, forward its port (ssh -L PORT:127.0.0.1:PORT)."),
		st.Dim.Render("The app stays live while mcpdeck runs; its messages show in the Traffic tab."))
	for _, p := range a.app.Problems {
		body = append(body, st.Warning.Render(present.Truncate("! "+present.Line(p), inner)))
	}
	return modalBox(a.c, "MCP App", body, 0, a.w, min(a.h, len(body)+3))
}

// openURL is the default Options.OpenURL: the browser a login uses.
func openURL(url string) error { return auth.OpenBrowser(url) }
