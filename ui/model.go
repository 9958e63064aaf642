package ui

import (
	"context"
	"encoding/json"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// frameInterval is the shortest time between two frames caused by runtime
// events (about 30 frames a second).
const frameInterval = time.Second / framesPerSecond

// forcedShutdownTimeout bounds teardown after a second ctrl+c.
const forcedShutdownTimeout = 2 * time.Second

// Minimum usable terminal size.
const (
	minWidth  = 80
	minHeight = 24
)

// common is what every pane reads: styles, keys, the clock and the data
// the root model keeps current. Panes never write to it; only the root
// model's Update does, on the program's goroutine.
type common struct {
	st   styles.Styles
	keys keys.KeyMap
	now  func() time.Time

	snap   *runtime.Snapshot
	server string // the selected server's name, "" when there is none

	notes   *ring[note]
	logs    *ring[logLine]
	traffic *ring[frame]
	// reqs are the outstanding requests by server and id: ids are
	// numbered per connection, so two servers both have a request 3.
	reqs map[reqKey]*runtime.RequestInfo
	// auth is what is stored for each remote server's login, read by a
	// command (Options.Auth) when the server is selected or logged in.
	auth map[string]*auth.Status
	// history is the runtime's call history as last read (after each call
	// of ours, and on the clock while calls finish), with its dropped count.
	history        []runtime.CallRecord
	historyDropped uint64
	// prim is what the resource and prompt tabs learned: updates, reads.
	prim *primState
	// gw is the gateway this session serves (--serve); nil when none.
	gw *gwState
	// replay: the UI shows a recording, where nothing can be started, so
	// no word may invite a key that starts something (see replayMCPOff).
	replay bool
	// loud is, by server name, the configuration's warnings that likely
	// keep the server from working as meant (config.Config.Loud: a
	// misspelt field, an empty argument), as the configuration the UI
	// handed the runtime says (Model.setApplied).
	loud map[string][]config.Diagnostic
	// loudFile is the configuration's warnings about whole files that
	// likely keep their servers from running (config.Config.LoudFile: a
	// server written outside "mcpServers"), which the servers pane says
	// when it has no server to show.
	loudFile []config.Diagnostic
}

// reqKey names an outstanding request: its server and its id there.
type reqKey struct {
	server string
	id     uint64
}

// selected returns the selected server's snapshot.
func (c *common) selected() (runtime.ServerSnapshot, bool) {
	if c.snap == nil {
		return runtime.ServerSnapshot{}, false
	}
	return c.snap.Server(c.server)
}

// clock formats t in the clock's location, so a fixed test clock gives the
// same text on every machine.
func (c *common) clock(t time.Time) string {
	return t.In(c.now().Location()).Format("15:04:05")
}

type focusArea int

const (
	focusServers focusArea = iota
	focusDetail
)

type statusKind int

const (
	statusInfo statusKind = iota
	statusWarn
	statusError
)

// Model is the root model: it owns layout, focus, routing, the modal
// stack and every store, and is the only writer of common. Its methods
// have pointer receivers because View caches the last frame.
type Model struct {
	opts Options
	rt   Runtime
	c    *common
	help help.Model

	width, height int
	focus         focusArea
	servers       cursor
	tabs          []tab
	active        int
	filtering     bool

	modal modal
	// under are the modals the current one was opened over (a resource
	// viewer over the tool result that links it), innermost last: closing
	// the current one shows the last of them again.
	under  []modal
	queued []modal // modals waiting for the current stack to close

	untrusted     []config.File // project files still needing approval
	trustDeclined bool
	enableAfter   bool // switch MCP on once every file is approved

	// A reload waiting for approval: the configuration read and its
	// changed project files still to approve. declined are the files the
	// person said no to (by path): nothing from them may run, c included.
	reloadCfg     *config.Config
	reloadPending []config.File
	// reloadAgain: r was pressed while a reload ran; the configuration is
	// read and applied again when it ends.
	reloadAgain bool
	declined    map[string]bool
	// applied is the configuration the runtime holds, as far as the UI
	// handed it over (Options.Config, then every reload and approval): a
	// reload's approval compares against it to say what changes.
	applied *config.Config

	lastArgs   map[string]json.RawMessage   // per normalized tool name
	lastPrompt map[string]map[string]string // per server and prompt name
	busy       map[string]bool              // operations in flight, to collapse repeats
	// acceptArmed is the tool whose CHANGED! definition the last key (a)
	// asked to accept: the next a accepts it, any other key forgets it.
	acceptArmed string

	// The compatibility check: at most one runs at a time. checkRun
	// numbers the runs; checkCancel and checkDone belong to the running
	// one (nil when none runs), checkStopped says the person stopped it.
	check        *checkTab
	checkRun     int
	checkCancel  context.CancelFunc
	checkDone    <-chan struct{}
	checkStopped bool

	// replay is set when the UI shows a recording (Options.Replay); rec
	// is the record key's state. See replay.go and record.go.
	replay *replayState
	rec    recState

	// pending are commands a state change queued where no command could
	// be returned (selecting a server asks for its auth status); Update
	// returns them.
	pending []tea.Cmd
	// historyStale: a tool call finished since the history was read.
	historyStale bool

	status     string
	statusKind statusKind
	statusAt   time.Time // when status was set, for expiry
	quitting   bool
	forced     bool

	// Frame throttling: events set dirty; a pending frame tick turns dirty
	// into stale; View renders only when stale.
	frame       string
	stale       bool
	dirty       bool
	tickPending bool
}

func newModel(opts Options) *Model {
	c := &common{
		st:      styles.Default(),
		keys:    keys.DefaultKeyMap(),
		now:     opts.Now,
		notes:   newRing[note](opts.NotificationLimit),
		logs:    newRing[logLine](logLimit),
		traffic: newRing[frame](trafficLimit),
		reqs:    map[reqKey]*runtime.RequestInfo{},
		auth:    map[string]*auth.Status{},
		prim:    newPrimState(),
		gw:      newGWState(opts.Serving),
	}
	h := help.New()
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = c.st.HelpKey, c.st.HelpDesc, c.st.HelpSep
	h.Styles.FullKey, h.Styles.FullDesc, h.Styles.FullSeparator = c.st.HelpKey, c.st.HelpDesc, c.st.HelpSep
	m := &Model{
		opts:        opts,
		rt:          opts.Runtime,
		c:           c,
		help:        h,
		untrusted:   append([]config.File(nil), opts.Untrusted...),
		enableAfter: opts.EnableOnStart,
		lastArgs:    map[string]json.RawMessage{},
		lastPrompt:  map[string]map[string]string{},
		busy:        map[string]bool{},
		declined:    map[string]bool{},
		stale:       true,
	}
	m.setApplied(opts.Config)
	m.check = newCheckTab(c, opts.Check != nil)
	m.tabs = []tab{newOverviewTab(c), newToolsTab(c), newRequestsTab(c), newNotesTab(c), newLogsTab(c), newTrafficTab(c), m.check,
		newResourcesTab(c), newPromptsTab(c)}
	if c.gw != nil {
		m.tabs = append(m.tabs, newClientsTab(c))
	}
	if m.rt != nil {
		m.setSnapshot(m.rt.Snapshot())
	}
	m.initRecordAndReplay()
	if len(m.untrusted) > 0 {
		m.modal = m.newTrustDialog(m.untrusted[0])
	}
	return m
}

// Init switches MCP on for --enable when there is nothing to approve.
func (m *Model) Init() tea.Cmd {
	pending := m.takePending()
	if m.enableAfter && len(m.untrusted) == 0 {
		m.enableAfter = false
		return tea.Batch(pending, m.setEnabled(true))
	}
	return pending
}

// Update routes a message. Runtime work is returned as commands; nothing
// here blocks.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	if p := m.takePending(); p != nil {
		cmd = tea.Batch(cmd, p)
	}
	return next, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		m.stale = true
		return m, nil
	case frameMsg:
		m.tickPending = false
		if m.dirty {
			m.dirty, m.stale = false, true
		}
		return m, nil
	case clockMsg:
		var cmd tea.Cmd
		if m.historyStale {
			m.historyStale = false
			cmd = m.readHistory()
		}
		if msg.snap != nil {
			m.setSnapshot(msg.snap)
			for _, t := range m.tabs {
				t.DataChanged()
			}
		}
		m.expireStatus()
		m.stale = true
		return m, cmd
	case eventsMsg:
		cmd := m.applyEvents(msg)
		return m, tea.Batch(cmd, m.scheduleFrame())
	case tea.KeyMsg:
		m.stale = true
		return m, m.handleKey(msg)
	case spinner.TickMsg:
		if cmd, ok := m.handleLogin(msg); ok {
			m.stale = true
			return m, cmd
		}
		// The spinner shows only in the Check tab: elsewhere its ticks
		// need no frame.
		cmd, _ := m.handleCheck(msg)
		m.stale = m.stale || m.active == tabCheck
		return m, cmd
	}
	m.stale = true
	return m, m.handleResult(msg)
}

// scheduleFrame marks the frame dirty and makes sure one tick is pending,
// so a burst of event batches costs one render.
func (m *Model) scheduleFrame() tea.Cmd {
	m.dirty = true
	if m.tickPending {
		return nil
	}
	m.tickPending = true
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// View returns the current frame, rendering it only when something
// changed since the last one.
func (m *Model) View() string {
	if m.stale || m.frame == "" {
		m.frame = m.render()
		m.stale = false
	}
	return m.frame
}

// How long a status message stays: long enough to read, short enough that
// the status line does not keep saying what is no longer true. Warnings
// and errors stay longer; the Overview and Logs keep the details.
const (
	statusInfoTTL  = 6 * time.Second
	statusAlertTTL = 20 * time.Second
)

// setStatus shows a message in the status line until the next one, or
// until it expires.
func (m *Model) setStatus(kind statusKind, s string) {
	if m.quitting {
		return // the quitting status says what is going on (see quit)
	}
	rows := len(m.statusRows())
	m.status, m.statusKind, m.statusAt = present.Line(s), kind, m.c.now()
	if len(m.statusRows()) != rows {
		m.layout() // a long message takes another row from the panes
	}
}

// expireStatus clears a message shown for longer than its kind's time;
// while quitting the message says what is going on, so it stays.
func (m *Model) expireStatus() {
	if m.status == "" || m.quitting {
		return
	}
	ttl := statusAlertTTL
	if m.statusKind == statusInfo {
		ttl = statusInfoTTL
	}
	if m.c.now().Sub(m.statusAt) >= ttl {
		rows := len(m.statusRows())
		m.status = ""
		if len(m.statusRows()) != rows {
			m.layout()
		}
	}
}

// openModal shows md now, or after the modal already open (and those it
// was opened over) closes: something the person did not ask for from the
// modal in front of them waits its turn.
func (m *Model) openModal(md modal) {
	if m.quitting {
		return // see quit
	}
	if m.modal == nil {
		m.modal = md
		m.sizeModal(md)
		return
	}
	m.queued = append(m.queued, md)
}

// openOver shows md on top of parent, the modal that asked for it (the
// result viewer's o), so closing md returns to parent. When parent is no
// longer in front (the person closed it while md was being prepared), md
// opens as any other modal does.
func (m *Model) openOver(parent, md modal) {
	if parent == nil || m.modal != parent {
		m.openModal(md)
		return
	}
	m.under = append(m.under, m.modal)
	m.modal = md
	m.sizeModal(md)
}

// closeModal closes the current modal and shows the one it was opened
// over, else the next one waiting.
func (m *Model) closeModal() {
	m.modal = nil
	switch {
	case len(m.under) > 0:
		m.modal, m.under = m.under[len(m.under)-1], m.under[:len(m.under)-1]
	case len(m.queued) > 0:
		m.modal, m.queued = m.queued[0], m.queued[1:]
		m.sizeModal(m.modal)
	}
}

// withdraw closes the modal in front if match accepts it, else takes the
// first queued one it accepts out of the queue: a question its asker gave
// up. It returns the modal it closed in front, nil otherwise.
func (m *Model) withdraw(match func(modal) bool) modal {
	if md := m.modal; md != nil && match(md) {
		m.closeModal()
		return md
	}
	for i, q := range m.queued {
		if match(q) {
			m.queued = append(m.queued[:i:i], m.queued[i+1:]...)
			break
		}
	}
	return nil
}

// openModals are the modals open now: the one in front first, then those
// it was opened over.
func (m *Model) openModals() []modal {
	if m.modal == nil {
		return nil
	}
	out := []modal{m.modal}
	for i := len(m.under) - 1; i >= 0; i-- {
		out = append(out, m.under[i])
	}
	return out
}

// activeTab is the tab shown in the detail pane.
func (m *Model) activeTab() tab { return m.tabs[m.active] }

// serverCount is the number of servers in the snapshot.
func (m *Model) serverCount() int {
	if m.c.snap == nil {
		return 0
	}
	return len(m.c.snap.Servers)
}

// selectServer moves the selection and tells the tabs.
func (m *Model) selectServer(i int) {
	n := m.serverCount()
	if n == 0 {
		m.c.server = ""
		return
	}
	m.servers.sel = min(max(i, 0), n-1)
	name := m.c.snap.Servers[m.servers.sel].Name
	if name != m.c.server {
		m.c.server = name
		for _, t := range m.tabs {
			t.ServerChanged()
		}
		m.pending = append(m.pending, m.authStatus(name))
	}
}

// takePending returns the commands state changes queued (an auth status
// read for a newly selected server) and forgets them.
func (m *Model) takePending() tea.Cmd {
	if len(m.pending) == 0 {
		return nil
	}
	cmds := m.pending
	m.pending = nil
	return tea.Batch(cmds...)
}

// shortHelp is the help bar for the current mode.
func (m *Model) shortHelp() []key.Binding {
	k := m.c.keys
	switch {
	case m.quitting:
		return []key.Binding{k.ForceQuit}
	case m.modal != nil:
		return m.modal.Help()
	case m.filtering:
		return []key.Binding{k.ApplyFilter, k.ClearFilter}
	case m.replay != nil:
		return append(k.ReplayHelp(), k.Help, k.Quit, k.FocusNext, k.NextTab, k.Filter)
	case m.focus == focusDetail && m.filterApplied():
		// The applied filter's key first: it is what hides rows.
		return append(append([]key.Binding{k.ClearFilter}, m.activeTab().ShortHelp()...), k.Help, k.Quit, k.FocusNext, k.NextTab)
	case m.focus == focusDetail:
		return append(m.activeTab().ShortHelp(), k.Help, k.Quit, k.FocusNext, k.NextTab)
	}
	return k.ShortHelp()
}

// ctx is the context for runtime calls.
func (m *Model) ctx() context.Context { return m.opts.Context }
