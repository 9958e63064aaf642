package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

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

// terminalClipboard copies through the terminal, with no clipboard
// program started under the UI, so it works over SSH too:
//
//   - Inside tmux (TMUX is set) it hands the text to tmux itself, with
//     `tmux load-buffer -w -`: the text becomes tmux's paste buffer (prefix
//     ] pastes it) and tmux sets the outer terminal's clipboard where it
//     can. That works with tmux's default settings; an OSC 52 sequence
//     does not: tmux 3.3's default set-clipboard (external) ignores an
//     application's OSC 52, and drops the DCS passthrough wrapper unless
//     allow-passthrough is on. Where the tmux command fails (too old for
//     -w, not on PATH) a plain OSC 52 follows, which tmux takes when
//     set-clipboard is on.
//   - Elsewhere it writes a plain OSC 52 sequence, in one Write, as the
//     renderer writes each frame in one: the two never interleave.
func terminalClipboard(out io.Writer) func(string) error {
	if out == nil {
		out = os.Stdout
	}
	osc52Copy := func(text string) error {
		_, err := io.WriteString(out, osc52.New(text).String())
		return err
	}
	return func(text string) error {
		if os.Getenv("TMUX") == "" {
			return osc52Copy(text)
		}
		if err := tmuxLoadBuffer(text); err != nil {
			return errors.Join(err, osc52Copy(text))
		}
		return nil
	}
}

// tmuxLoadBuffer gives text to the tmux server this process runs under.
func tmuxLoadBuffer(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", "load-buffer", "-w", "-")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux load-buffer: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// clipboardWhere says where the default clipboard put a copy: tmux's
// buffer inside tmux, else the terminal's clipboard (as far as the
// terminal honours OSC 52, which nothing can confirm).
func clipboardWhere() string {
	if os.Getenv("TMUX") != "" {
		return "tmux's paste buffer (prefix ] pastes; tmux passes it on to the terminal's clipboard where it can)"
	}
	return "the clipboard"
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
		where := "the clipboard"
		if m.opts.defaultClipboard {
			where = clipboardWhere()
		}
		m.setStatus(statusInfo, "copied the "+msg.what+" ("+present.Size(msg.size)+") to "+where)
	}
}

// userHome is the home directory; a variable so tests can fix it.
var userHome = os.UserHomeDir
