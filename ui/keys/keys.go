// Package keys owns every key binding of the mcpdeck terminal UI. The help
// bar and the full help overlay are generated from the KeyMap, so a key that
// works is a key that is documented.
package keys

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every binding of the UI, grouped by where it applies.
type KeyMap struct {
	// Session-wide.
	ToggleMCP    key.Binding
	ToggleServer key.Binding
	Reload       key.Binding
	Reconnect    key.Binding
	Check        key.Binding
	Record       key.Binding
	LogLevel     key.Binding
	Roots        key.Binding
	Login        key.Binding
	Logout       key.Binding
	Help         key.Binding
	Quit         key.Binding
	ForceQuit    key.Binding

	// Navigation.
	FocusNext key.Binding
	FocusPrev key.Binding
	Up        key.Binding
	Down      key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	PrevTab   key.Binding
	NextTab   key.Binding
	JumpTab   key.Binding

	// Pane actions.
	Filter      key.Binding
	ApplyFilter key.Binding
	ClearFilter key.Binding
	Select      key.Binding
	Cancel      key.Binding
	Disconnect  key.Binding // the Clients tab: end the selected gateway client
	StopCheck   key.Binding
	Pause       key.Binding
	Scope       key.Binding
	Back        key.Binding
	Close       key.Binding
	Save        key.Binding
	Copy        key.Binding
	Search      key.Binding
	NextMatch   key.Binding
	PrevMatch   key.Binding
	Subscribe   key.Binding
	Details     key.Binding
	OpenLink    key.Binding
	OpenApp     key.Binding // the result viewer: open the tool's MCP App
	Rerun       key.Binding
	EditRerun   key.Binding
	AddToSuite  key.Binding // the call history: the call as a step of a test suite
	Add         key.Binding
	Remove      key.Binding

	// The Tools tab: the operator's decisions on each tool.
	ToggleTool key.Binding // switch the selected tool off and on
	AcceptTool key.Binding // approve a changed definition
	SortTools  key.Binding // by name, or by what listing a tool costs

	// The servers pane: change the configuration files.
	AddServer    key.Binding
	EditServer   key.Binding
	RemoveServer key.Binding
	Registry     key.Binding

	// Replay timeline (mcpdeck replay FILE).
	ReplayBack        key.Binding
	ReplayForward     key.Binding
	ReplayJumpBack    key.Binding
	ReplayJumpForward key.Binding
	ReplayPrevMark    key.Binding
	ReplayNextMark    key.Binding
	ReplayStart       key.Binding
	ReplayEnd         key.Binding

	// Forms and dialogs.
	Send             key.Binding // a form's fields: enter sends
	Submit           key.Binding // the raw JSON editor, where enter is a new line
	NextField        key.Binding
	PrevField        key.Binding
	Toggle           key.Binding
	PrevChoice       key.Binding
	RawJSON          key.Binding
	Validate         key.Binding // a form: validation on/off (--no-validate)
	AddItem          key.Binding // an array heading: one more item
	RemoveItem       key.Binding // an array heading or item: one less
	NextSuggestion   key.Binding
	PrevSuggestion   key.Binding
	AcceptSuggestion key.Binding
	Yes              key.Binding
	No               key.Binding
	Decline          key.Binding // a server's question (elicitation)
	TryServer        key.Binding // the add form: connect before saving
}

// DefaultKeyMap returns the bindings the UI ships with.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		ToggleMCP:    b("m", "mcp on/off", "m"),
		ToggleServer: b("space", "server on/off", " "),
		Reload:       b("r", "reload", "r"),
		Reconnect:    b("R", "reconnect", "R"),
		Check:        b("c", "check server", "c"),
		Record:       b("ctrl+r", "record on/off", "ctrl+r"),
		LogLevel:     b("L", "log level", "L"),
		Roots:        b("o", "roots", "o"),
		Login:        b("i", "log in", "i"),
		Logout:       b("I", "log out", "I"),
		Help:         b("?", "help", "?"),
		Quit:         b("q", "quit", "q", "ctrl+c"),
		ForceQuit:    b("ctrl+c", "force quit (twice)", "ctrl+c"),

		FocusNext: b("tab", "focus", "tab"),
		FocusPrev: b("shift+tab", "prev pane", "shift+tab"),
		Up:        b("↑/k", "up", "up", "k"),
		Down:      b("↓/j", "down", "down", "j"),
		PageUp:    b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:  b("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:       b("g", "top", "g", "home"),
		Bottom:    b("G", "bottom", "G", "end"),
		PrevTab:   b("←/h", "prev tab", "left", "h", "["),
		NextTab:   b("→/l", "next tab", "right", "l", "]"),
		JumpTab:   b("1-9/0", "go to tab (0: clients)", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0"),

		Filter:      b("/", "filter", "/"),
		ApplyFilter: b("enter", "apply filter", "enter"),
		ClearFilter: b("esc", "clear filter", "esc"),
		Select:      b("enter", "open", "enter"),
		Cancel:      b("x", "cancel request", "x"),
		Disconnect:  b("D", "disconnect client", "D"),
		StopCheck:   b("x", "stop the check", "x"),
		Pause:       b("p", "pause/follow", "p"),
		Scope:       b("a", "all/selected server", "a"),
		Back:        b("esc", "back", "esc"),
		Close:       b("esc/q/enter", "close", "esc", "q", "enter"),
		Save:        b("s", "save to a file", "s"),
		Copy:        b("y", "copy", "y"),
		Search:      b("/", "search", "/"),
		NextMatch:   b("n", "next match", "n"),
		PrevMatch:   b("N", "previous match", "N"),
		Subscribe:   b("u", "subscribe/unsubscribe", "u"),
		Details:     b("d", "details", "d"),
		OpenLink:    b("o", "open linked resource", "o"),
		OpenApp:     b("a", "open the tool's MCP App", "a"),
		Rerun:       b("E", "re-run as it was", "E"),
		EditRerun:   b("e", "edit and re-run", "e"),
		AddToSuite:  b("T", "add the call to a test suite", "T"),
		Add:         b("+", "add", "+", "a"),
		Remove:      b("-", "remove", "-", "d", "delete"),

		ToggleTool: b("space", "tool on/off", " "),
		AcceptTool: b("a", "accept the changed definition", "a"),
		SortTools:  b("s", "sort by cost/name", "s"),

		AddServer:    b("a", "add a server", "a"),
		EditServer:   b("e", "edit the server", "e"),
		RemoveServer: b("D", "remove the server", "D"),
		Registry:     b("b", "browse the MCP Registry", "b"),

		ReplayBack:        b(",", "step back", ","),
		ReplayForward:     b(".", "step on", "."),
		ReplayJumpBack:    b("<", "10 s back", "<"),
		ReplayJumpForward: b(">", "10 s on", ">"),
		ReplayPrevMark:    b("{", "prev milestone", "{"),
		ReplayNextMark:    b("}", "next milestone", "}"),
		ReplayStart:       b("^", "replay start", "^"),
		ReplayEnd:         b("$", "replay end", "$"),

		Send:             b("enter/ctrl+s", "send", "enter", "ctrl+s"),
		Submit:           b("ctrl+s", "send (raw JSON)", "ctrl+s"),
		NextField:        b("tab/↓", "next field", "tab", "down"),
		PrevField:        b("shift+tab/↑", "prev field", "shift+tab", "up"),
		Toggle:           b("space/→", "toggle, next choice", " ", "right"),
		PrevChoice:       b("←", "previous choice", "left"),
		RawJSON:          b("ctrl+e", "form/raw JSON", "ctrl+e"),
		Validate:         b("ctrl+t", "validation on/off", "ctrl+t"),
		AddItem:          b("+", "add an item", "+"),
		RemoveItem:       b("-", "remove the item", "-"),
		NextSuggestion:   b("ctrl+n", "next suggestion", "ctrl+n"),
		PrevSuggestion:   b("ctrl+p", "previous suggestion", "ctrl+p"),
		AcceptSuggestion: b("→/ctrl+f", "take the suggestion", "right", "ctrl+f"),
		Yes:              b("y", "yes", "y", "Y"),
		No:               b("n/esc", "no", "n", "N", "esc"),
		Decline:          b("ctrl+x", "decline (a server's question)", "ctrl+x"),
		TryServer:        b("ctrl+g", "try it: connect before saving", "ctrl+g"),
	}
}

// ShortHelp is the help bar of the main screen.
func (k KeyMap) ShortHelp() []key.Binding {
	// Most important first: the help bar truncates on narrow terminals.
	return []key.Binding{k.ToggleMCP, k.ToggleServer, k.Reload, k.Reconnect, k.Help, k.Quit, k.Check, k.FocusNext, k.NextTab, k.Filter, k.LogLevel, k.Roots}
}

// HelpSection is one titled part of the ? help: the keys of one place of
// the UI. Within a section each key is listed once; bindings of that
// place which share a key are shown as one entry that says both.
type HelpSection struct {
	Title    string
	Bindings []key.Binding
}

// HelpSections are the ? help, every binding of the map in exactly one
// section (TestEveryBindingOnceInTheHelp).
func (k KeyMap) HelpSections() []HelpSection {
	var out []HelpSection
	for _, s := range k.helpLayout() {
		hs := HelpSection{Title: s.title}
		for _, e := range s.entries {
			hs.Bindings = append(hs.Bindings, e.binding())
		}
		out = append(out, hs)
	}
	return out
}

// helpSection and helpEntry are the help as written: an entry is one
// binding, or several of one place that share a key, with what they do
// together (desc).
type helpSection struct {
	title   string
	entries []helpEntry
}

type helpEntry struct {
	desc  string // "" for a single binding: its own description
	parts []key.Binding
}

func one(b key.Binding) helpEntry { return helpEntry{parts: []key.Binding{b}} }

func merge(desc string, bs ...key.Binding) helpEntry { return helpEntry{desc: desc, parts: bs} }

// binding is the entry as one binding: every key of its parts, their key
// labels, and its description.
func (e helpEntry) binding() key.Binding {
	if len(e.parts) == 1 && e.desc == "" {
		return e.parts[0]
	}
	var keys, labels []string
	for _, b := range e.parts {
		for _, k := range b.Keys() {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		for _, l := range strings.Split(b.Help().Key, "/") {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(labels, "/"), e.desc))
}

// helpLayout is where each binding is explained: one section per place
// of the UI, in the order a person meets them.
func (k KeyMap) helpLayout() []helpSection {
	ones := func(bs ...key.Binding) []helpEntry {
		out := make([]helpEntry, len(bs))
		for i, b := range bs {
			out[i] = one(b)
		}
		return out
	}
	return []helpSection{
		{"Session", append(ones(k.ToggleMCP, k.ToggleServer, k.Reload, k.Reconnect, k.Check, k.Record, k.LogLevel, k.Roots,
			k.Login, k.Logout, k.Help), merge("quit (ctrl+c twice: force)", k.Quit, k.ForceQuit))},
		{"Servers pane", ones(k.AddServer, k.EditServer, k.RemoveServer, k.Registry)},
		{"Tools tab", ones(k.ToggleTool, k.AcceptTool, k.SortTools)},
		{"Moving", ones(k.FocusNext, k.FocusPrev, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.PrevTab, k.NextTab, k.JumpTab)},
		{"Lists", []helpEntry{one(k.Filter), merge("open; apply the filter being typed", k.Select, k.ApplyFilter), one(k.ClearFilter),
			one(k.Details), one(k.Subscribe), merge("cancel the request; stop the check (Check tab)", k.Cancel, k.StopCheck),
			one(k.Disconnect), one(k.EditRerun), one(k.Rerun), one(k.AddToSuite), one(k.Pause), one(k.Scope)}},
		{"Viewers", ones(k.Search, k.NextMatch, k.PrevMatch, k.Save, k.Copy, k.OpenLink, k.OpenApp, k.Close)},
		{"Forms", []helpEntry{merge("send (ctrl+s in the raw JSON editor)", k.Send, k.Submit), one(k.NextField), one(k.PrevField),
			one(k.Toggle), one(k.PrevChoice), one(k.RawJSON), one(k.Validate), merge("add a root, or an item to an array", k.AddItem, k.Add),
			merge("remove a root, or an array's item", k.RemoveItem, k.Remove), one(k.TryServer), one(k.Back)}},
		{"Suggestions", ones(k.NextSuggestion, k.PrevSuggestion, k.AcceptSuggestion)},
		{"Dialogs", ones(k.Yes, k.No, k.Decline)},
		{"Replay", ones(k.ReplayHelp()...)},
	}
}

// FullHelp is the ? help's sections as columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	var cols [][]key.Binding
	for _, s := range k.HelpSections() {
		cols = append(cols, s.Bindings)
	}
	return cols
}

// ReplayHelp is the timeline's keys, first in the help bar of a replay.
func (k KeyMap) ReplayHelp() []key.Binding {
	return []key.Binding{k.ReplayBack, k.ReplayForward, k.ReplayJumpBack, k.ReplayJumpForward,
		k.ReplayPrevMark, k.ReplayNextMark, k.ReplayStart, k.ReplayEnd}
}

// DialogHelp is the help bar while a yes/no dialog is open.
func (k KeyMap) DialogHelp() []key.Binding { return []key.Binding{k.Yes, k.No} }

// ViewerHelp is the help bar of a text viewer (results, resources,
// prompts, details).
func (k KeyMap) ViewerHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Search, k.NextMatch, k.PrevMatch, k.Save, k.Copy, k.Close}
}

// All is every binding of the map, for checking that the keys the UI
// handles are the keys its help shows.
func (k KeyMap) All() []key.Binding {
	var out []key.Binding
	for _, col := range k.FullHelp() {
		out = append(out, col...)
	}
	return out
}

// Relabel is b with another description, for a pane where the same keys
// mean something more specific ("accept" for send); the keys stay those
// of the map, so what the help shows is still what works.
func Relabel(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}
