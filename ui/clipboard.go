package ui

import (
	"io"
	"os"

	osc52 "github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/present"
)

// maxCopy bounds what one copy sends: terminals cap OSC 52 payloads (often
// around 100 KB), and beyond that the copy silently fails.
const maxCopy = 64 << 10

// copiedMsg reports a copy to the clipboard.
type copiedMsg struct {
	what string
	size int
	cut  bool
	err  error
}

// osc52Clipboard copies through the terminal (OSC 52), which works over
// SSH and inside tmux, with no clipboard program started under the UI.
// The sequence is written in one Write, as the renderer writes each frame
// in one: the two never interleave on the terminal.
func osc52Clipboard(out io.Writer) func(string) error {
	if out == nil {
		out = os.Stdout
	}
	return func(text string) error {
		seq := osc52.New(text)
		if os.Getenv("TMUX") != "" {
			seq = seq.Tmux()
		}
		_, err := io.WriteString(out, seq.String())
		return err
	}
}

// copyCmd copies text (bounded) with the session's clipboard.
func (m *Model) copyCmd(what, text string) tea.Cmd {
	clip := m.opts.Clipboard
	if clip == nil {
		m.setStatus(statusWarn, "copying is not available in this session")
		return nil
	}
	cut := len(text) > maxCopy
	if cut {
		text = text[:maxCopy]
	}
	return func() tea.Msg {
		return copiedMsg{what: what, size: len(text), cut: cut, err: clip(text)}
	}
}

func (m *Model) handleCopied(msg copiedMsg) {
	switch {
	case msg.err != nil:
		m.setStatus(statusError, "copying the "+msg.what+" failed: "+errText(msg.err))
	case msg.cut:
		m.setStatus(statusWarn, "copied the first "+present.Size(msg.size)+" of the "+msg.what+" (terminals refuse more); s saves all of it")
	default:
		m.setStatus(statusInfo, "copied the "+msg.what+" ("+present.Size(msg.size)+") to the clipboard")
	}
}

// userHome is the home directory; a variable so tests can fix it.
var userHome = os.UserHomeDir
