package ui

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/suite"
	"mcpdeck/ui/present"
)

// The T key of the call history turns the selected call into a step of a
// test suite (mcpdeck test): the call with its arguments, expecting what
// came back: a snapshot of the whole result, or the fields chosen here
// (each as an equals expectation), or both; an error answer becomes an
// error expectation. The dialog asks which suite file; by default
// mcp-tests/SERVER.mcptest.yaml under the working directory, made when it
// does not exist. The existing text of a suite is kept as it is.

// suiteDir is where suites are written by default: mcp-tests/ under the
// working directory, as mcpdeck test looks for them.
const suiteDir = "mcp-tests"

// maxStepFields bounds the fields offered, for a large result.
const maxStepFields = 200

// addToSuiteMsg asks the root model for the dialog on a past call.
type addToSuiteMsg struct{ rec runtime.CallRecord }

// suiteStepMsg reports where the step went.
type suiteStepMsg struct {
	path, id string
	err      error
	secret   bool // the suite's inline server lacks the headers the session's had
	named    bool // the suite names its server: the configuration finds it
}

// stepChoice is one expectation the dialog offers.
type stepChoice struct {
	label string
	field *suite.PathValue // nil: the snapshot
	on    bool
}

type suiteStepDialog struct {
	c       *common
	rec     runtime.CallRecord
	server  suite.ServerRef      // how the suite reaches the call's server
	secret  bool                 // the server has headers the suite leaves out
	doc     any                  // the result document, nil for an error answer
	rpcErr  *suite.RecordedError // the JSON-RPC error the call got
	path    textinput.Model
	choices []stepChoice
	cur     cursor
	onList  bool   // focus: the choices (else the file)
	problem string // why the call cannot be a step, or the last write's error
	w, h    int
}

// suiteServer is how a suite reaches the named server: suite.ServerFor of
// its configuration, as mcpdeck test --from-recording writes it (an
// ad-hoc server inline); by name when the UI holds no configuration (a
// replay).
func (m *Model) suiteServer(name string) (ref suite.ServerRef, secret bool) {
	if m.applied != nil {
		for _, s := range m.applied.Servers {
			if s.Name == name {
				return suite.ServerFor(s)
			}
		}
	}
	return suite.ServerRef{Name: name}, false
}

func newSuiteStepDialog(c *common, rec runtime.CallRecord, server suite.ServerRef, secret bool) *suiteStepDialog {
	d := &suiteStepDialog{c: c, rec: rec, server: server, secret: secret, path: newLineInput(c.st)}
	d.path.SetValue(filepath.Join(suiteDir, rec.Server+suite.Ext))
	d.path.CursorEnd()
	d.path.Focus()
	switch {
	case rec.Result != nil:
		d.doc = suite.CallDocument(rec.Result)
		d.choices = append(d.choices, stepChoice{label: "snapshot of the whole result", on: true})
		for _, f := range suite.Fields(d.doc, maxStepFields) {
			b, _ := json.Marshal(f.Value)
			d.choices = append(d.choices, stepChoice{label: f.Path + " = " + string(b), field: &f})
		}
	case rec.Err != nil && rec.Err.Code != 0:
		d.rpcErr = &suite.RecordedError{Code: rec.Err.Code, Message: rec.Err.Message}
	default:
		d.problem = "this call " + rec.Status.String() + " without an answer from the server: there is nothing to expect"
	}
	return d
}

func (d *suiteStepDialog) SetSize(w, h int) {
	d.w, d.h = min(max(w-8, 50), 110), h
	setLineWidth(&d.path, d.w-4)
}

func (d *suiteStepDialog) Help() []key.Binding {
	k := d.c.keys
	return []key.Binding{k.NextField, k.Toggle, keysRelabel(k.Send, "add the step"), k.Back}
}

func (d *suiteStepDialog) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := d.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Send):
		return d.send()
	case msg.String() == "tab" || msg.String() == "shift+tab":
		d.onList = !d.onList && len(d.choices) > 0
		if d.onList {
			d.path.Blur()
		} else {
			d.path.Focus()
		}
		return d, nil
	}
	if !d.onList {
		if key.Matches(msg, k.NextField) && len(d.choices) > 0 {
			d.onList = true
			d.path.Blur()
			return d, nil
		}
		editLine(&d.path, msg)
		return d, nil
	}
	if key.Matches(msg, k.Toggle) && d.cur.sel < len(d.choices) {
		d.choices[d.cur.sel].on = !d.choices[d.cur.sel].on
		return d, nil
	}
	if key.Matches(msg, k.Up) && d.cur.sel == 0 {
		d.onList = false
		d.path.Focus()
		return d, nil
	}
	navKeys(d.c, msg, &d.cur, len(d.choices), d.listRows())
	return d, nil
}

// step is the suite step the dialog describes.
func (d *suiteStepDialog) step() (suite.NewStep, error) {
	st := suite.NewStep{ID: d.rec.Tool, Kind: suite.KindCall, Target: d.rec.Tool, Error: d.rpcErr}
	var args map[string]any
	if err := json.Unmarshal(d.rec.Arguments, &args); err == nil && len(args) > 0 {
		st.Args = args
	}
	if d.doc == nil {
		return st, nil
	}
	st.IsError = d.rec.Result.IsError
	for _, ch := range d.choices {
		switch {
		case !ch.on:
		case ch.field == nil:
			st.Snapshot = d.doc
		case ch.field.Path == "$.isError":
			// written as isError: (true), or the default (false)
		default:
			st.Equals = append(st.Equals, *ch.field)
		}
	}
	if st.Snapshot == nil && len(st.Equals) == 0 && !st.IsError {
		return st, fmt.Errorf("choose the snapshot or at least one field to expect (space)")
	}
	return st, nil
}

func (d *suiteStepDialog) send() (modal, tea.Cmd) {
	if d.problem != "" && d.doc == nil && d.rpcErr == nil {
		return d, nil
	}
	st, err := d.step()
	if err != nil {
		d.problem = err.Error()
		return d, nil
	}
	path, server, secret := d.path.Value(), d.server, d.secret
	if path == "" {
		d.problem = "name the suite file"
		return d, nil
	}
	return nil, func() tea.Msg {
		ids, err := suite.AppendStepsFor(path, server, []suite.NewStep{st})
		msg := suiteStepMsg{path: path, err: err, secret: secret, named: server.Inline == nil}
		if len(ids) > 0 {
			msg.id = ids[0]
		}
		return msg
	}
}

// listRows is the room for choices: title, note, file, blank, heading.
func (d *suiteStepDialog) listRows() int { return max(d.h-10, 3) }

func (d *suiteStepDialog) View() string {
	st := d.c.st
	inner := d.w - 4
	body := []string{st.Dim.Render(present.Truncate(fmt.Sprintf("the call of %s on %s becomes a step expecting what came back", present.Line(d.rec.Tool), present.Line(d.rec.Server)), inner)), ""}
	label := "suite file  "
	if !d.onList {
		label = st.Accent.Render(label)
	}
	setLineWidth(&d.path, inner-len("suite file  "))
	body = append(body, label+lineView(&d.path, inner-len("suite file  ")), "")
	keep := 0
	switch {
	case d.rpcErr != nil:
		body = append(body, fmt.Sprintf("expects the error %d: %s", d.rpcErr.Code, present.Line(d.rpcErr.Message)))
	case len(d.choices) > 0:
		body = append(body, st.Dim.Render("expect (space chooses):"))
		sel, top := d.cur.window(len(d.choices), d.listRows())
		for i := top; i < len(d.choices) && i < top+d.listRows(); i++ {
			box := "[ ] "
			if d.choices[i].on {
				box = "[x] "
			}
			line := box + present.Line(d.choices[i].label)
			if d.onList && i == sel {
				line = st.Selected.Render(padRight("› "+line, inner))
				keep = len(body)
			} else {
				line = "  " + line
			}
			body = append(body, present.Truncate(line, inner))
		}
	}
	if d.problem != "" {
		body = append(body, "", st.Error.Render(present.Truncate(d.problem, inner)))
	}
	return modalBox(d.c, "Add to a test suite", body, keep, d.w, min(d.h, len(body)+3))
}

// suiteRunCommand is the command that runs the suite at path as the
// session found its servers: a suite that names its server finds it in
// the configuration, so the --config files this session was started with
// are part of the command (without them mcpdeck test would discover
// another configuration, or none).
func (m *Model) suiteRunCommand(path string, named bool) string {
	cmd := "mcpdeck"
	if named && m.applied != nil {
		for _, f := range m.applied.Files {
			if f.Scope == config.ScopeExplicit {
				cmd += " --config " + config.ShellQuote(f.Path)
			}
		}
	}
	return cmd + " test " + config.ShellQuote(path)
}

// handleSuiteStep reports the written step in the status line.
func (m *Model) handleSuiteStep(msg suiteStepMsg) {
	if msg.err != nil {
		m.setStatus(statusError, "adding the step failed: "+errText(msg.err))
		return
	}
	text := fmt.Sprintf("added step %s to %s; run it with: %s", msg.id, msg.path, m.suiteRunCommand(msg.path, msg.named))
	if msg.secret {
		text += " (a suite keeps no secrets: add the server's headers to it, e.g. Authorization: \"Bearer ${env:TOKEN}\")"
	}
	m.setStatus(statusInfo, text)
}
