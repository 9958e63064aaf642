package ui

import (
	"bytes"
	"encoding/base64"
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
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
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

// A result with image or audio blocks, or embedded resources, offers each
// of them as a file of its own (with the extension of its MIME type,
// decoded from base64), besides the whole result as JSON: an image is to
// be looked at, not read as base64.

// savable is one thing of a result that can be saved.
type savable struct {
	label string
	save  tea.Cmd
}

// chooseSaveMsg asks the root model which part of a result to save, in a
// chooser over the viewer that showed it.
type chooseSaveMsg struct {
	items []savable
	from  modal
}

// saveResultOrBlock saves the result at once when it is all text, else
// asks which part to save.
func saveResultOrBlock(from modal, d callDoneMsg) tea.Cmd {
	items := []savable{{label: "the whole result, as JSON", save: saveResult(d)}}
	if d.res != nil {
		for i, c := range d.res.Content {
			if it, ok := blockSavable(d.tool.Server, i, c); ok {
				items = append(items, it)
			}
		}
	}
	if len(items) == 1 {
		return items[0].save
	}
	return func() tea.Msg { return chooseSaveMsg{items: items, from: from} }
}

// blockSavable is content block i as a file of its own: an image or audio
// block, or an embedded resource; ok is false for any other block.
func blockSavable(server string, i int, c runtime.Content) (savable, bool) {
	what := fmt.Sprintf("content-%d", i+1)
	label := fmt.Sprintf("content %d: %s", i+1, c.Type)
	var data, mimeType string
	var text []byte
	switch {
	case c.Type == "image" || c.Type == "audio":
		data, mimeType = c.Data, c.MIMEType
	case c.Type == "resource" && c.Resource != nil && c.Resource.Blob != "":
		data, mimeType = c.Resource.Blob, c.Resource.MIMEType
		label += " " + c.Resource.URI
	case c.Type == "resource" && c.Resource != nil:
		text, mimeType = []byte(c.Resource.Text), c.Resource.MIMEType
		label += " " + c.Resource.URI
		if mimeType == "" {
			mimeType = "text/plain"
		}
	default:
		return savable{}, false
	}
	ext := extension(mimeType)
	if text != nil {
		return savable{label: fmt.Sprintf("%s (%s, %s) as %s", label, present.OrDash(mimeType), present.Size(len(text)), ext),
			save: saveBytes(what, server, ext, text)}, true
	}
	label = fmt.Sprintf("%s (%s, %s) as %s", label, present.OrDash(mimeType), present.Size(decodedSize(data)), ext)
	decoded, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return savable{label: label, save: func() tea.Msg {
			return savedMsg{what: what, err: fmt.Errorf("content %d is not valid base64: %w", i+1, err)}
		}}, true
	}
	return savable{label: label, save: saveBytes(what, server, ext, decoded)}, true
}

// chooseSave shows the parts of a result to save.
func (m *Model) chooseSave(msg chooseSaveMsg) {
	labels := make([]string, len(msg.items))
	for i, it := range msg.items {
		labels[i] = it.label
	}
	items := msg.items
	m.openOver(msg.from, newChooser(m.c, "Save what?", "to "+exportPlace(), labels, 0, func(i int) tea.Msg {
		return saveChosenMsg{save: items[i].save}
	}))
}

// saveChosenMsg: the person picked what to save.
type saveChosenMsg struct{ save tea.Cmd }

// exportPlace names the exports directory for the chooser's note.
func exportPlace() string {
	if dir, err := exportDir(); err == nil {
		return dir
	}
	return "the exports directory"
}

// handleSaved reports an export in the status line.
func (m *Model) handleSaved(msg savedMsg) {
	if msg.err != nil {
		m.setStatus(statusError, "saving the "+msg.what+" failed: "+errText(msg.err))
		return
	}
	m.setStatus(statusInfo, "saved the "+msg.what+" to "+msg.path)
}
