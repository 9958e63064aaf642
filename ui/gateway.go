package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/gateway"
	"mcpdeck/ui/present"
)

// AttachGateway connects a running program to the gateway the session
// serves (Options.Serving): a forwarding goroutine reads the client list
// and the calls waiting for approval off the program's goroutine after
// every burst of gateway events, and once a second so ages, totals and
// last-seen times stay live, and sends them to the program; the TUI
// becomes the gateway's approver. send is program.Send (teatest:
// TestModel.Send). detach stops the goroutine and returns once it has
// ended; it is safe to call more than once, and after the gateway closed.
func AttachGateway(g Gateway, send func(tea.Msg)) (detach func()) {
	events, cancel := g.Subscribe()
	approver := g.AttachApprover()
	done := make(chan struct{})
	go forwardGateway(g, events, send, done)
	var once sync.Once
	return func() {
		once.Do(func() {
			approver()
			cancel()
			<-done
		})
	}
}

// gatewayMsg is the gateway as the forwarder last read it: its clients,
// and what the events since the last message said.
type gatewayMsg struct {
	clients []gateway.ClientInfo
	// pending are the calls waiting for the operator's approval.
	pending []gateway.Approval
	// forwarded: a client request reached a server, so a row of the
	// Requests tab may now be attributed to its client.
	forwarded bool
	// detached are the clients that went away, with the reason.
	detached []gateway.ClientDetached
}

// forwardGateway is AttachGateway's goroutine. It ends when the
// subscription is cancelled or the gateway closes.
func forwardGateway(g Gateway, events <-chan gateway.Event, send func(tea.Msg), done chan<- struct{}) {
	defer close(done)
	clock := time.NewTicker(clockEvery)
	defer clock.Stop()
	send(gatewayMsg{clients: g.Clients(), pending: g.Pending()})
	for {
		var e gateway.Event
		select {
		case <-clock.C:
			send(gatewayMsg{clients: g.Clients(), pending: g.Pending()})
			continue
		case ev, ok := <-events:
			if !ok {
				return
			}
			e = ev
		}
		var msg gatewayMsg
		note := func(e gateway.Event) {
			switch e := e.(type) {
			case gateway.RequestForwarded:
				msg.forwarded = true
			case gateway.ClientDetached:
				msg.detached = append(msg.detached, e)
			}
		}
		note(e)
	drain:
		for range forwardBatch {
			select {
			case e, ok := <-events:
				if !ok {
					break drain
				}
				note(e)
			default:
				break drain
			}
		}
		msg.clients, msg.pending = g.Clients(), g.Pending()
		send(msg)
	}
}

// gwState is what the model knows of the gateway it serves; common.gw is
// nil when the session serves none. Only the model's Update writes it.
type gwState struct {
	g     Gateway
	url   string
	token string // never drawn: the copy key copies it
	// fingerprint names the token on screen: enough to tell two apart.
	fingerprint string
	clients     []gateway.ClientInfo
	// owner attributes the outstanding runtime requests (the Requests
	// tab's rows) to the client requests they serve.
	owner map[reqKey]gateway.Request
	// asked are the approvals the operator was shown a dialog for (and
	// still wait), by ID.
	asked map[string]bool
}

func newGWState(s *Serving) *gwState {
	if s == nil || s.Gateway == nil {
		return nil
	}
	return &gwState{g: s.Gateway, url: s.URL, token: s.Token, fingerprint: tokenFingerprint(s.Token), owner: map[reqKey]gateway.Request{}}
}

// tokenFingerprint is what the screen shows of a token: the start of its
// SHA-256, which tells tokens apart and reveals nothing of them.
func tokenFingerprint(token string) string {
	if token == "" {
		return "none"
	}
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// client returns the attached client with id.
func (g *gwState) client(id string) (gateway.ClientInfo, bool) {
	for _, c := range g.clients {
		if c.ID == id {
			return c, true
		}
	}
	return gateway.ClientInfo{}, false
}

// label names a client for a column: what it calls itself, or its ID
// until it says (or once it is gone).
func (g *gwState) label(id string) string {
	if c, ok := g.client(id); ok && c.Name != "" {
		return present.Line(c.Name)
	}
	return id
}

// hostPort is where the gateway listens, for the header.
func (g *gwState) hostPort() string {
	if u, err := url.Parse(g.url); err == nil && u.Host != "" {
		return u.Host
	}
	return g.url
}

// clientName is a client as a sentence names it: "claude-code (c1)".
func clientName(c gateway.ClientInfo) string {
	if c.Name == "" {
		return c.ID
	}
	return present.Line(c.Name) + " (" + c.ID + ")"
}

// attributedMsg carries what RequestOf said about unattributed rows.
type attributedMsg struct{ found map[reqKey]gateway.Request }

// attribute asks the gateway which client each outstanding request that
// has no owner yet serves, off the program's goroutine. A request the
// gateway does not know (the person's own call, or one whose forward is
// not filed yet) is asked about again on the next gateway message.
func (m *Model) attribute() tea.Cmd {
	gw := m.c.gw
	if gw == nil {
		return nil
	}
	for k := range gw.owner {
		if m.c.reqs[k] == nil {
			delete(gw.owner, k)
		}
	}
	type query struct {
		key    reqKey
		server string
		id     uint64
	}
	var want []query
	for k, r := range m.c.reqs {
		if _, ok := gw.owner[k]; !ok {
			want = append(want, query{k, r.Server, r.ID})
		}
	}
	if len(want) == 0 {
		return nil
	}
	g := gw.g
	return func() tea.Msg {
		found := map[reqKey]gateway.Request{}
		for _, q := range want {
			if r, ok := g.RequestOf(q.server, q.id); ok {
				found[q.key] = r
			}
		}
		return attributedMsg{found: found}
	}
}

// disconnectIntentMsg asks to disconnect a client (the Clients tab's key).
type disconnectIntentMsg struct{ client gateway.ClientInfo }

// disconnectMsg is the confirmed disconnection.
type disconnectMsg struct{ client gateway.ClientInfo }

// disconnectedMsg reports a disconnection; ok is false when the client
// had gone already.
type disconnectedMsg struct {
	client gateway.ClientInfo
	ok     bool
}

// handleGateway folds the gateway's messages into the model.
func (m *Model) handleGateway(msg tea.Msg) (tea.Cmd, bool) {
	gw := m.c.gw
	switch msg := msg.(type) {
	case gatewayMsg:
		if gw == nil {
			return nil, true
		}
		gw.clients = msg.clients
		m.syncApprovals(msg.pending)
		for _, d := range msg.detached {
			if d.Reason != gateway.ReasonOperator {
				m.setStatus(statusInfo, fmt.Sprintf("client %s left: %s", clientName(d.Client), present.Line(d.Reason)))
			}
		}
		if len(m.tabs) > tabClients {
			m.tabs[tabClients].DataChanged() // the selection follows its client
		}
		return m.attribute(), true
	case approvalDecidedMsg:
		m.approvalDecided(msg)
		return nil, true
	case attributedMsg:
		if gw != nil {
			for k, r := range msg.found {
				if m.c.reqs[k] != nil {
					gw.owner[k] = r
				}
			}
		}
		return nil, true
	case disconnectIntentMsg:
		c := msg.client
		if n := len(c.InFlight); n > 0 {
			d := &dialog{c: m.c, title: "Disconnect " + clientName(c) + "?",
				yes: func() tea.Msg { return disconnectMsg{client: c} }}
			d.wrapBody(fmt.Sprintf("Its %s will be cancelled (the servers are told), and its connection closed. A client may connect again.",
				present.Count(n, "request in flight", "requests in flight")))
			m.openModal(d)
			return nil, true
		}
		return m.disconnect(c), true
	case disconnectMsg:
		return m.disconnect(msg.client), true
	case disconnectedMsg:
		switch {
		case msg.ok && msg.client.Session == "stateless":
			// Nothing holds a stateless client: its next request brings it
			// back, as a new client; only the token keeps it out.
			m.setStatus(statusInfo, "disconnected "+clientName(msg.client)+"; its requests were cancelled. It is stateless: its next request brings it back (change the gateway token to keep it out)")
		case msg.ok:
			m.setStatus(statusInfo, "disconnected "+clientName(msg.client)+"; its requests were cancelled")
		default:
			m.setStatus(statusWarn, clientName(msg.client)+" had already gone")
		}
		return nil, true
	}
	return nil, false
}

// disconnect ends a client through the gateway, off the program's
// goroutine (it waits for the client's transport to close).
func (m *Model) disconnect(c gateway.ClientInfo) tea.Cmd {
	if m.c.gw == nil {
		return nil
	}
	g := m.c.gw.g
	m.setStatus(statusInfo, "disconnecting "+clientName(c)+"…")
	return func() tea.Msg { return disconnectedMsg{client: c, ok: g.Disconnect(c.ID)} }
}
