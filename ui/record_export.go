package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gabriel-vasile/mimetype"

	"mcpdeck/config"
)

// The save key (s) writes what the traffic tab or the result viewer
// shows to a file, to attach to a bug report: a frame as its JSON, a
// result as `mcpdeck call --json` prints it. Files go to
// $XDG_STATE_HOME/mcpdeck/exports/, mode 0600 (they hold what a server
// said).

// savedMsg reports where an export went.
type savedMsg struct {
	what, path string
	err        error
}

// exportDir is where saves go; tests point it elsewhere.
var exportDir = func() (string, error) {
	state, err := config.DefaultStateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(state, "exports"), nil
}

// saveCmd writes data to a fresh file named after what and server.
func saveCmd(what, server string, data []byte) tea.Cmd {
	return saveBytes(what, server, ".json", data)
}

// extension is the file extension for a MIME type, ".bin" when unknown.
// The usual extension comes first (github.com/gabriel-vasile/mimetype
// knows it for the common types): the system's table lists every
// extension of a type in alphabetical order, and its first for
// text/plain is ".asc" on Debian, which names an OpenPGP armored file,
// not a server's text. Only a type that library does not know falls back
// to the system's table, preferring ".txt" for text.
func extension(mimeType string) string {
	if m := mimetype.Lookup(mimeType); m != nil && m.Extension() != "" {
		return m.Extension()
	}
	media, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ".bin"
	}
	exts, err := mimeExtensions(media)
	switch {
	case err == nil && slices.Contains(exts, ".txt"):
		return ".txt"
	case err == nil && len(exts) > 0:
		return exts[0]
	case strings.HasPrefix(media, "text/"):
		return ".txt"
	}
	return ".bin"
}

// saveBytes writes data to a fresh file with extension ext.
func saveBytes(what, server, ext string, data []byte) tea.Cmd {
	return func() tea.Msg {
		dir, err := exportDir()
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err != nil {
			return savedMsg{what: what, err: fmt.Errorf("finding a place for exports: %w", err)}
		}
		name := fmt.Sprintf("%s-%s-%s%s", time.Now().Format("20060102-150405.000"), safeName(server), what, ext)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return savedMsg{what: what, err: err}
		}
		return savedMsg{what: what, path: path}
	}
}

var mimeExtensions = mime.ExtensionsByType

func safeName(s string) string {
	if s == "" {
		return "session"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r < 0x20 {
			return '_'
		}
		return r
	}, s)
}

// saveFrame exports a traffic frame: the message as the wire carried it,
// indented.
func saveFrame(f *frame) tea.Cmd {
	var b bytes.Buffer
	if json.Indent(&b, f.f.Raw, "", "  ") != nil {
		b.Reset()
		b.Write(f.f.Raw) // not JSON: saved as the wire carried it
	}
	return saveCmd("frame", f.server, append(b.Bytes(), '\n'))
}

// saveResult exports a call's result, or its error.
func saveResult(d callDoneMsg) tea.Cmd {
	var v any = d.res
	if d.err != nil {
		v = map[string]string{"error": d.err.Error()}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return func() tea.Msg { return savedMsg{what: "result", err: err} }
	}
	return saveCmd("result", d.tool.Server, append(b, '\n'))
}

// handleSaved reports an export in the status line.
func (m *Model) handleSaved(msg savedMsg) {
	if msg.err != nil {
		m.setStatus(statusError, "saving the "+msg.what+" failed: "+errText(msg.err))
		return
	}
	m.setStatus(statusInfo, "saved the "+msg.what+" to "+msg.path)
}
