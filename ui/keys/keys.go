// Package keys owns every key binding of the mcpdeck terminal UI. The help
// bar and the full help overlay are generated from the KeyMap, so a key that
// works is a key that is documented.
package keys

import "github.com/charmbracelet/bubbles/key"

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
	Rerun       key.Binding
	EditRerun   key.Binding
	Add         key.Binding
	Remove      key.Binding

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
		Copy:        b("y", "copy (OSC 52)", "y"),
		Search:      b("/", "search", "/"),
		NextMatch:   b("n", "next match", "n"),
		PrevMatch:   b("N", "previous match", "N"),
		Subscribe:   b("u", "subscribe/unsubscribe", "u"),
		Details:     b("d", "details", "d"),
		OpenLink:    b("o", "open linked resource", "o"),
		Rerun:       b("E", "re-run as it was", "E"),
		EditRerun:   b("e", "edit and re-run", "e"),
		Add:         b("+", "add", "+", "a"),
		Remove:      b("-", "remove", "-", "d", "delete"),

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
	}
}

// ShortHelp is the help bar of the main screen.
func (k KeyMap) ShortHelp() []key.Binding {
	// Most important first: the help bar truncates on narrow terminals.
	return []key.Binding{k.ToggleMCP, k.ToggleServer, k.Reload, k.Reconnect, k.Help, k.Quit, k.Check, k.FocusNext, k.NextTab, k.Filter, k.LogLevel, k.Roots}
}

// FullHelp is the help overlay, one column per section.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ToggleMCP, k.ToggleServer, k.Reload, k.Reconnect, k.Check, k.Record, k.LogLevel, k.Roots, k.Login, k.Logout, k.Help, k.Quit, k.ForceQuit},
		{k.FocusNext, k.FocusPrev, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.PrevTab, k.NextTab, k.JumpTab},
		{k.Filter, k.ApplyFilter, k.ClearFilter, k.Select, k.Details, k.Subscribe, k.Cancel, k.Disconnect, k.EditRerun, k.Rerun, k.StopCheck, k.Pause, k.Scope, k.Back, k.Close},
		{k.Save, k.Copy, k.Search, k.NextMatch, k.PrevMatch, k.OpenLink, k.Add, k.Remove},
		{k.Send, k.Submit, k.NextField, k.PrevField, k.Toggle, k.PrevChoice, k.RawJSON, k.Validate, k.AddItem, k.RemoveItem},
		{k.NextSuggestion, k.PrevSuggestion, k.AcceptSuggestion, k.Yes, k.No, k.Decline},
		k.ReplayHelp(),
	}
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
