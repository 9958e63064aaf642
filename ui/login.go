package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/ui/present"
)

// Logging in to a server that needs MCP authorization: i runs the
// manager's browser flow in a command while a modal shows the
// authorization URL (y copies it, for a browser on another machine) and a
// spinner; esc cancels. Once logged in, the server reconnects with its
// token. I forgets the token. The overview says where tokens are kept.

// LoginURLs carries authorization URLs from the auth manager (give
// Report as auth.Options.OnURL) to a running program. Nothing is printed:
// the TUI owns the terminal.
type LoginURLs struct{ programLink }

// Report hands the URL a login for server opened to the program, if one
// is attached; it never blocks the login for long (the program's Send).
func (l *LoginURLs) Report(server, url string) {
	if l != nil {
		l.deliver(loginURLMsg{server: server, url: url})
	}
}

type loginURLMsg struct{ server, url string }

type loginDoneMsg struct {
	server string
	st     *auth.Status
	err    error
}

type logoutDoneMsg struct {
	server string
	err    error
}

type authStatusMsg struct {
	server string
	st     *auth.Status
	err    error
}

// target is the auth target of a remote server, or why there is none.
func (m *Model) target(srv runtime.ServerSnapshot) (auth.Target, string) {
	switch {
	case m.opts.Auth == nil || m.opts.AuthTarget == nil:
		return auth.Target{}, "logging in is not available in this session"
	case srv.Transport == config.TransportStdio:
		return auth.Target{}, srv.Name + " runs on stdio: MCP authorization is for remote servers; give it credentials in \"env\""
	}
	t, ok := m.opts.AuthTarget(srv.Name)
	if !ok {
		return t, srv.Name + " is not in the configuration any more: press r"
	}
	return t, ""
}

// selectedTarget is the selected server and its auth target; where it
// has none, the status line says why and ok is false.
func (m *Model) selectedTarget() (srv runtime.ServerSnapshot, t auth.Target, ok bool) {
	srv, ok = m.c.selected()
	if !ok {
		return srv, t, false
	}
	t, why := m.target(srv)
	if why != "" {
		m.setStatus(statusWarn, why)
		return srv, t, false
	}
	return srv, t, true
}

// login starts the browser flow for the selected server.
func (m *Model) login() tea.Cmd {
	srv, t, ok := m.selectedTarget()
	if !ok {
		return nil
	}
	if m.busy["login "+srv.Name] {
		return nil
	}
	m.busy["login "+srv.Name] = true
	ctx, cancel := context.WithCancel(m.ctx())
	lm := newLoginModal(m.c, srv.Name, cancel)
	m.openModal(lm)
	a := m.opts.Auth
	m.setStatus(statusInfo, "logging in to "+srv.Name+": waiting for the browser…")
	return tea.Batch(lm.spin.Tick, func() tea.Msg {
		st, err := a.Login(ctx, t)
		cancel()
		return loginDoneMsg{server: srv.Name, st: st, err: err}
	})
}

// logout forgets the selected server's token.
func (m *Model) logout() tea.Cmd {
	srv, t, ok := m.selectedTarget()
	if !ok {
		return nil
	}
	a := m.opts.Auth
	return func() tea.Msg { return logoutDoneMsg{server: srv.Name, err: a.Logout(t)} }
}

// authStatus reads what is stored for a remote server, off the program's
// goroutine (the keyring may be slow).
func (m *Model) authStatus(name string) tea.Cmd {
	srv, ok := m.c.snap.Server(name)
	if !ok {
		return nil
	}
	t, why := m.target(srv)
	if why != "" {
		return nil
	}
	a := m.opts.Auth
	return func() tea.Msg {
		st, err := a.Status(t)
		return authStatusMsg{server: name, st: st, err: err}
	}
}

// handleLogin applies the login flow's messages.
func (m *Model) handleLogin(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case loginURLMsg:
		if lm := m.loginModal(msg.server); lm != nil {
			lm.url = msg.url
		}
		return nil, true
	case loginDoneMsg:
		delete(m.busy, "login "+msg.server)
		if lm := m.loginModal(msg.server); lm != nil {
			m.closeModal()
		}
		switch {
		case errors.Is(msg.err, context.Canceled):
			m.setStatus(statusWarn, "login to "+msg.server+" cancelled; nothing was stored")
			return nil, true
		case msg.err != nil:
			m.setStatus(statusError, errAbout("login to "+msg.server+" failed", msg.server, msg.err))
			return nil, true
		}
		m.c.auth[msg.server] = msg.st
		if m.c.snap != nil && m.c.snap.Enabled {
			m.setStatus(statusInfo, "logged in to "+msg.server+"; reconnecting with the token…")
			return m.reconnectServer(msg.server), true
		}
		m.setStatus(statusInfo, "logged in to "+msg.server+"; the token is used once MCP is on (m)")
		return nil, true
	case logoutDoneMsg:
		if msg.err != nil {
			m.setStatus(statusError, errAbout("logging out of "+msg.server+" failed", msg.server, msg.err))
			return nil, true
		}
		m.setStatus(statusInfo, "logged out of "+msg.server+": its token is forgotten (the connection open now keeps working until it closes)")
		return m.authStatus(msg.server), true
	case authStatusMsg:
		if msg.err == nil {
			m.c.auth[msg.server] = msg.st
		}
		return nil, true
	case spinner.TickMsg:
		if lm, ok := m.modal.(*loginModal); ok && msg.ID == lm.spin.ID() {
			var cmd tea.Cmd
			lm.spin, cmd = lm.spin.Update(msg)
			return cmd, true
		}
	}
	return nil, false
}

// loginModal is the open login modal for server, or nil.
func (m *Model) loginModal(server string) *loginModal {
	if lm, ok := m.modal.(*loginModal); ok && lm.server == server {
		return lm
	}
	return nil
}

// loginModal shows a login in progress.
type loginModal struct {
	c      *common
	server string
	url    string
	cancel context.CancelFunc
	spin   spinner.Model
	start  time.Time
	w, h   int
}

func newLoginModal(c *common, server string, cancel context.CancelFunc) *loginModal {
	return &loginModal{c: c, server: server, cancel: cancel, start: c.now(),
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(c.st.Info))}
}

func (l *loginModal) SetSize(w, h int) { l.w, l.h = min(max(w-6, 40), 100), min(h, 14) }

func (l *loginModal) Help() []key.Binding {
	k := l.c.keys
	return []key.Binding{keysRelabel(k.Copy, "copy the URL"), keysRelabel(k.Back, "cancel the login")}
}

func (l *loginModal) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := l.c.keys
	switch {
	case key.Matches(msg, k.Back):
		l.cancel()
		return l, nil // closed when the login reports its end
	case key.Matches(msg, k.Copy) && l.url != "":
		url := l.url
		return l, func() tea.Msg { return copyURLMsg{url: url} }
	}
	return l, nil
}

type copyURLMsg struct{ url string }

func (l *loginModal) View() string {
	st := l.c.st
	inner := l.w - 4
	body := []string{l.spin.View() + " " + st.Text.Render("waiting for the browser to come back…")}
	body = append(body, "")
	if l.url == "" {
		body = append(body, st.Dim.Render("asking the server how to authorize…"))
	} else {
		body = append(body, st.Label.Render("If no browser opened, open this address (y copies it):"))
		for _, line := range chunk(present.Line(l.url), inner) {
			body = append(body, st.Accent.Render(line))
		}
	}
	body = append(body, "", st.Dim.Render("esc cancels; nothing is stored until the login completes"))
	return modalBox(l.c, "Log in to "+l.server, body, 0, l.w, min(l.h, len(body)+3))
}

// chunk cuts s into pieces of width cells: a URL has no spaces to wrap at,
// and must stay whole to be copied from the screen.
func chunk(s string, width int) []string {
	width = max(width, 10)
	var out []string
	r := []rune(s)
	for len(r) > width {
		out = append(out, string(r[:width]))
		r = r[width:]
	}
	return append(out, string(r))
}

// authLine is the overview's line about a remote server's login.
func (t *overviewTab) authLine(srv runtime.ServerSnapshot) string {
	st := t.c.st
	s := t.c.auth[srv.Name]
	if s == nil {
		return ""
	}
	where := string(s.Storage)
	if s.StoragePath != "" {
		where += " " + s.StoragePath
	}
	var parts []string
	switch {
	case !s.TokenPresent && srv.State == runtime.StateNeedsLogin:
		parts = append(parts, st.Warning.Render("not logged in: i logs in"))
	case !s.TokenPresent:
		parts = append(parts, "no token stored")
	case s.Expiry == nil:
		parts = append(parts, "token stored, no expiry")
	case s.Expired && s.Refreshable:
		parts = append(parts, "token expired, refreshed on next use")
	case s.Expired:
		parts = append(parts, st.Warning.Render("token expired: i logs in again"))
	default:
		parts = append(parts, "token valid until "+s.Expiry.In(t.c.now().Location()).Format(time.DateTime))
	}
	if len(s.Scopes) > 0 {
		parts = append(parts, "scopes "+present.Line(strings.Join(s.Scopes, " ")))
	}
	parts = append(parts, "tokens kept in "+present.Line(where))
	return strings.Join(parts, " · ")
}

func keysRelabel(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// needsLoginText is the overview's word for a server waiting for a login.
func needsLoginText(srv runtime.ServerSnapshot) string {
	return fmt.Sprintf("%s needs a login: i opens the browser to log in, then it reconnects (R retries with a stored token)", srv.Name)
}
