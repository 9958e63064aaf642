package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/fleet"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/styles"
)

// FleetSource is what the fleet view reads (*fleet.Fleet): the fleet as
// Prometheus sees it now.
type FleetSource interface {
	Load(ctx context.Context) (*fleet.View, error)
}

// DefaultFleetEvery is how often the fleet view asks Prometheus again.
const DefaultFleetEvery = 5 * time.Second

// ErrReadOnlyFleet is what the keys that change something say in the
// fleet view.
var ErrReadOnlyFleet = errors.New("read-only fleet view: it only reads Prometheus; run mcpdeck on the host to change a server")

// FleetOptions configure the fleet view (mcpdeck fleet).
type FleetOptions struct {
	// Source is queried at start, every Every (default 5s), and on r.
	Source FleetSource
	// URL is the Prometheus shown in the header.
	URL   string
	Every time.Duration
	// Now is the clock for ages; nil means time.Now.
	Now func() time.Time
	// Input and Output replace the terminal for RunFleet.
	Input  io.Reader
	Output io.Writer
}

// RunFleet shows the fleet until the person quits or ctx ends.
func RunFleet(ctx context.Context, opts FleetOptions) error {
	styles.RespectNoColor()
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(framesPerSecond)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	// The view's refreshes and timers end with it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newFleetModel(ctx, opts)
	_, err := tea.NewProgram(m, popts...).Run()
	if err != nil && ctx.Err() == nil && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("running the fleet view: %w", err)
	}
	return nil
}

// fleetModel is the fleet view: the servers pane's rows for every host's
// servers, under a heading per host, and the selected server's details.
// It changes nothing: the keys that would are answered ErrReadOnlyFleet.
type fleetModel struct {
	ctx  context.Context
	opts FleetOptions
	st   styles.Styles
	keys keys.KeyMap
	help help.Model
	// refresh is the reload key, worded for what it does here.
	refresh key.Binding

	width, height int
	view          *fleet.View // the last good answer; nil before the first
	err           error       // the last refresh's failure, nil after a success
	loading       bool
	cur           cursor // over the servers the filter lets through
	filter        textinput.Model
	filtering     bool
	showHelp      bool
	status        string
}

// fleetLoadedMsg is a refresh's answer; fleetTickMsg asks for the next.
type (
	fleetLoadedMsg struct {
		v   *fleet.View
		err error
	}
	fleetTickMsg struct{}
)

func newFleetModel(ctx context.Context, opts FleetOptions) *fleetModel {
	if opts.Every <= 0 {
		opts.Every = DefaultFleetEvery
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	st := styles.Default()
	h := help.New()
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = st.HelpKey, st.HelpDesc, st.HelpSep
	h.Styles.FullKey, h.Styles.FullDesc, h.Styles.FullSeparator = st.HelpKey, st.HelpDesc, st.HelpSep
	k := keys.DefaultKeyMap()
	refresh := k.Reload
	refresh.SetHelp("r", "refresh now")
	return &fleetModel{ctx: ctx, opts: opts, st: st, keys: k, help: h, refresh: refresh,
		filter: newFilterInput(st), loading: true}
}

func (m *fleetModel) Init() tea.Cmd { return m.load() }

// load asks the source, off the program's goroutine.
func (m *fleetModel) load() tea.Cmd {
	ctx, src := m.ctx, m.opts.Source
	return func() tea.Msg {
		v, err := src.Load(ctx)
		return fleetLoadedMsg{v, err}
	}
}

// tick waits for the next refresh; it gives up when the view ends, so no
// timer outlives it.
func (m *fleetModel) tick() tea.Cmd {
	ctx, every := m.ctx, m.opts.Every
	return func() tea.Msg {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-t.C:
			return fleetTickMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

func (m *fleetModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		setLineWidth(&m.filter, m.width-1)
	case fleetLoadedMsg:
		m.loading = false
		if msg.err != nil {
			m.err = msg.err
		} else {
			m.view, m.err, m.status = msg.v, nil, ""
		}
		return m, m.tick()
	case fleetTickMsg:
		if !m.loading {
			m.loading = true
			return m, m.load()
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// key handles a key press.
func (m *fleetModel) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.filtering {
		switch {
		case key.Matches(msg, k.ApplyFilter):
			m.filtering = false
			m.filter.Blur()
		case key.Matches(msg, k.ClearFilter):
			m.filtering = false
			m.filter.Blur()
			m.filter.SetValue("")
		default:
			editLine(&m.filter, msg)
		}
		m.cur.sel = 0
		return nil
	}
	n := len(m.servers())
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		m.filter.SetValue("")
		m.showHelp = false
	case key.Matches(msg, m.refresh):
		if !m.loading {
			m.loading = true
			m.status = "refreshing…"
			return m.load()
		}
	case key.Matches(msg, k.ToggleMCP, k.ToggleServer, k.Reconnect, k.Check, k.Login, k.Logout, k.LogLevel,
		k.Roots, k.Record, k.Select, k.Cancel, k.Disconnect):
		m.status = ErrReadOnlyFleet.Error()
	default:
		navKeys(&common{keys: k}, msg, &m.cur, n, m.listRows())
	}
	return nil
}

// fleetRow is one row of the list: a host's heading (srv nil) or one of
// its servers.
type fleetRow struct {
	host *fleet.Host
	srv  *fleet.Server
}

// rows are the list's rows with the filter applied: each host that has a
// server the filter lets through, then those servers.
func (m *fleetModel) rows() []fleetRow {
	if m.view == nil {
		return nil
	}
	f := parseFleetFilter(m.filter.Value())
	var out []fleetRow
	for i := range m.view.Hosts {
		h := &m.view.Hosts[i]
		head := len(out)
		for j := range h.Servers {
			if s := &h.Servers[j]; f.match(s) {
				if len(out) == head {
					out = append(out, fleetRow{host: h})
				}
				out = append(out, fleetRow{host: h, srv: s})
			}
		}
	}
	return out
}

// servers are the servers shown, in order: what the cursor moves over.
func (m *fleetModel) servers() []*fleet.Server {
	var out []*fleet.Server
	for _, r := range m.rows() {
		if r.srv != nil {
			out = append(out, r.srv)
		}
	}
	return out
}

// fleetFilter is the text typed after /: words must all match; host:x,
// server:x and state:x match those fields, other words anywhere.
type fleetFilter struct {
	words               []string
	host, server, state string
}

func parseFleetFilter(q string) fleetFilter {
	words, f := filterTerms(q, "host", "server", "state")
	return fleetFilter{words: words, host: f["host"], server: f["server"], state: f["state"]}
}

func (f fleetFilter) match(s *fleet.Server) bool {
	if !strings.Contains(strings.ToLower(s.Host), f.host) || !strings.Contains(strings.ToLower(s.Name), f.server) ||
		!strings.HasPrefix(s.State, f.state) {
		return false
	}
	hay := strings.ToLower(strings.Join([]string{s.Host, s.Name, s.State, s.Transport, s.ProtocolVersion, s.Era}, " "))
	if s.LastError != nil {
		hay += " " + strings.ToLower(s.LastError.Kind+" "+s.LastError.Message)
	}
	return matcher{words: f.words}.matchHay(hay)
}

func (m *fleetModel) View() string { return m.render() }
