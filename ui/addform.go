package ui

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/shlex"

	"mcpdeck/config"
	"mcpdeck/ui/present"
)

// The add form's fields.
const (
	fName = iota
	fKind
	fCommand
	fEnv
	fCwd
	fURL
	fHeaders
	fFile
	fSecrets
	fieldCount
)

// Transports and secret storages as the form offers them.
var (
	formKinds   = []string{"stdio (a local command)", "http (Streamable HTTP)", "sse (legacy HTTP+SSE)"}
	formSecrets = []string{"${env:NAME} reference (set the variable)", "VS Code input (VS Code asks; mcpdeck cannot)", "the value, in plain text in the file"}
	storages    = []config.SecretStorage{config.SecretAsEnv, config.SecretAsInput, config.SecretAsValue}
)

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })

// formField is one line of the form: a text or a choice.
type formField struct {
	label   string
	in      textinput.Model
	choices []string
	choice  int
	err     string
}

// serverForm adds a server (a) or edits one (e). Each field is checked as
// it is typed; a JSON entry pasted into any field fills the whole form;
// ctrl+g tries the server before it is saved; a secret typed in env or
// headers makes the form ask how to store it.
type serverForm struct {
	c      *common
	edit   string // the server being edited; "" when adding
	files  []ManageFile
	taken  []string // names in use, which a new server may not take
	f      [fieldCount]*formField
	focus  int
	extra  config.Entry // fields of a pasted entry the form has no line for
	status string
	bad    bool // status is an error
	busy   bool // saving or trying
	// stopTry ends a try in progress when the form closes.
	stopTry func()
	save    func(serverIntent) tea.Cmd
	try     func(*serverForm, config.Server) tea.Cmd
	w, h    int
}

// serverIntent is a form's server to write.
type serverIntent struct {
	form    *serverForm
	edit    bool
	name    string
	entry   config.Entry
	file    ManageFile
	secrets config.SecretStorage
	inputs  []config.Input
}

func newServerForm(c *common, files []ManageFile, taken []string) *serverForm {
	f := &serverForm{c: c, files: files, taken: taken}
	labels := [fieldCount]string{"name", "transport", "command", "env", "cwd", "url", "headers", "file", "secrets"}
	hints := [fieldCount]string{"my-server", "", "npx -y @modelcontextprotocol/server-everything", "KEY=value OTHER='two words'", "(optional) working directory", "https://example.com/mcp", "Authorization: Bearer …; X-Other: v", "", ""}
	for i := range f.f {
		f.f[i] = &formField{label: labels[i], in: newLineInput(c.st)}
		f.f[i].in.Placeholder = hints[i]
	}
	f.f[fKind].choices = formKinds
	f.f[fSecrets].choices = formSecrets
	for _, file := range files {
		f.f[fFile].choices = append(f.f[fFile].choices, file.Label+"  "+file.Path)
	}
	f.setFocus(0)
	return f
}

// fill sets the form from an entry in mcpdeck's format.
func (f *serverForm) fill(name string, e config.Entry) {
	if name != "" && f.edit == "" {
		f.f[fName].in.SetValue(name)
	}
	_, remote := e.Get("url")
	typ, _ := e.String("type")
	f.f[fKind].choice = 0
	switch {
	case typ == "sse":
		f.f[fKind].choice = 2
	case remote || typ == "http" || typ == "streamable-http":
		f.f[fKind].choice = 1
	}
	cmd, _ := e.String("command")
	args, _ := e.Strings("args")
	words := []string{}
	for _, w := range append([]string{cmd}, args...) {
		if w != "" {
			words = append(words, config.ShellQuote(w))
		}
	}
	f.f[fCommand].in.SetValue(strings.Join(words, " "))
	env, _ := e.Map("env")
	var kv []string
	for _, p := range env {
		kv = append(kv, p.Name+"="+config.ShellQuote(p.Value))
	}
	f.f[fEnv].in.SetValue(strings.Join(kv, " "))
	cwd, _ := e.String("cwd")
	f.f[fCwd].in.SetValue(cwd)
	u, _ := e.String("url")
	f.f[fURL].in.SetValue(u)
	headers, _ := e.Map("headers")
	var hs []string
	for _, p := range headers {
		hs = append(hs, p.Name+": "+p.Value)
	}
	f.f[fHeaders].in.SetValue(strings.Join(hs, "; "))
	f.extra = nil
	for _, fl := range e {
		if !slices.Contains([]string{"type", "command", "args", "env", "cwd", "url", "headers"}, fl.Name) {
			f.extra = append(f.extra, fl)
		}
	}
	f.validate()
}

func (f *serverForm) remote() bool { return f.f[fKind].choice > 0 }

// visible are the fields shown for the transport chosen.
func (f *serverForm) visible() []int {
	out := []int{fName, fKind}
	if f.edit != "" {
		out = []int{fKind} // the name is the one being edited: shown, not typed
	}
	if f.remote() {
		out = append(out, fURL, fHeaders)
	} else {
		out = append(out, fCommand, fEnv, fCwd)
	}
	if f.edit == "" && len(f.files) > 1 {
		out = append(out, fFile)
	}
	if len(f.entry().Secrets(f.name())) > 0 {
		out = append(out, fSecrets)
	}
	return out
}

func (f *serverForm) name() string { return strings.TrimSpace(f.f[fName].in.Value()) }

func (f *serverForm) setFocus(i int) {
	vis := f.visible()
	f.focus = vis[min(max(i, 0), len(vis)-1)]
	for j, fl := range f.f {
		if j == f.focus && fl.choices == nil {
			fl.in.Focus()
		} else {
			fl.in.Blur()
		}
	}
}

// move moves the focus by d visible fields.
func (f *serverForm) move(d int) {
	vis := f.visible()
	i := slices.Index(vis, f.focus)
	f.setFocus(cycle(i, d, len(vis)))
}

// entry is the server the form describes, in mcpdeck's format.
func (f *serverForm) entry() config.Entry {
	var e config.Entry
	if f.remote() {
		tr := config.TransportHTTP
		if f.f[fKind].choice == 2 {
			tr = config.TransportSSE
		}
		headers, _ := splitHeaders(f.f[fHeaders].in.Value())
		e = config.RemoteEntry(tr, strings.TrimSpace(f.f[fURL].in.Value()), headers)
	} else {
		words, _ := shlex.Split(f.f[fCommand].in.Value())
		env, _ := splitEnv(f.f[fEnv].in.Value())
		if len(words) == 0 {
			words = []string{""}
		}
		e = config.StdioEntry(words[0], words[1:], env, "", strings.TrimSpace(f.f[fCwd].in.Value()))
	}
	for _, x := range f.extra {
		if _, has := e.Get(x.Name); !has {
			e = append(e, x)
		}
	}
	return e
}

// splitEnv reads "K=V K2='two words'".
func splitEnv(s string) (config.Pairs, error) {
	words, err := shlex.Split(s)
	if err != nil {
		return nil, errors.New("unbalanced quotes")
	}
	var out config.Pairs
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, errors.New(present.Line(w) + ": write KEY=value")
		}
		out.Set(k, v)
	}
	return out, nil
}

// splitHeaders reads "Name: value; Other: v".
func splitHeaders(s string) (config.Pairs, error) {
	var out config.Pairs
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errors.New(present.Line(strings.TrimSpace(part)) + ": write Name: value")
		}
		out.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return out, nil
}

// validate checks every field as it is now; it reports whether the form
// can be saved.
func (f *serverForm) validate() bool {
	for _, fl := range f.f {
		fl.err = ""
	}
	name := f.name()
	switch {
	case f.edit != "":
	case name == "":
		f.f[fName].err = "required"
	case !validName().MatchString(name):
		f.f[fName].err = "use 1 to 64 letters, digits, '_', '.' or '-'"
	case slices.Contains(f.taken, name):
		f.f[fName].err = "a server of this name is already configured"
	}
	if f.remote() {
		u, err := url.Parse(strings.TrimSpace(f.f[fURL].in.Value()))
		switch {
		case strings.TrimSpace(f.f[fURL].in.Value()) == "":
			f.f[fURL].err = "required"
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			f.f[fURL].err = "an http:// or https:// URL"
		}
		headers, err := splitHeaders(f.f[fHeaders].in.Value())
		if err != nil {
			f.f[fHeaders].err = err.Error()
		}
		for _, h := range headers {
			// As --header is refused (config.MissingCredential): "Bearer "
			// with an empty token is no credential.
			if msg := config.MissingCredential(h.Name, h.Value); msg != "" {
				f.f[fHeaders].err = msg
				break
			}
		}
	} else {
		words, err := shlex.Split(f.f[fCommand].in.Value())
		switch {
		case err != nil:
			f.f[fCommand].err = "unbalanced quotes"
		case len(words) == 0:
			f.f[fCommand].err = "required: the program and its arguments"
		}
		if _, err := splitEnv(f.f[fEnv].in.Value()); err != nil {
			f.f[fEnv].err = err.Error()
		}
	}
	for _, i := range f.visible() {
		if f.f[i].err != "" {
			return false
		}
	}
	return true
}

func (f *serverForm) SetSize(w, h int) {
	f.w, f.h = min(max(w-6, 50), 110), h
	for _, fl := range f.f {
		setLineWidth(&fl.in, f.w-20)
	}
}

func (f *serverForm) Help() []key.Binding {
	k := f.c.keys
	b := []key.Binding{keysRelabel(k.Send, "save"), k.NextField, k.PrevField}
	if f.f[f.focus].choices != nil {
		b = append(b, k.Toggle, k.PrevChoice)
	}
	return append(b, k.TryServer, k.Back)
}

func (f *serverForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := f.c.keys
	fl := f.f[f.focus]
	switch {
	case msg.Paste && f.pasteJSON(string(msg.Runes)):
		return f, nil
	case key.Matches(msg, k.Back):
		if f.stopTry != nil {
			f.stopTry()
		}
		return nil, nil
	case f.busy:
		return f, nil // saving or trying: the answer comes
	case key.Matches(msg, k.Send):
		return f, f.submit()
	case key.Matches(msg, k.TryServer):
		return f, f.startTry()
	case key.Matches(msg, k.NextField):
		f.move(1)
	case key.Matches(msg, k.PrevField):
		f.move(-1)
	case fl.choices != nil && key.Matches(msg, k.Toggle):
		fl.choice = cycle(fl.choice, 1, len(fl.choices))
	case fl.choices != nil && key.Matches(msg, k.PrevChoice):
		fl.choice = cycle(fl.choice, -1, len(fl.choices))
	case fl.choices == nil:
		if !editLine(&fl.in, msg) {
			return f, nil
		}
	default:
		return f, nil
	}
	f.status, f.bad = "", false
	f.validate()
	return f, nil
}

// pasteJSON fills the form from a pasted server definition; it reports
// whether the paste was one.
func (f *serverForm) pasteJSON(text string) bool {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "{") && !(strings.HasPrefix(text, `"`) && strings.Contains(text, "{")) {
		return false // a member ("x": {...}) as a README prints it is JSON too
	}
	name, e, err := config.ParseServerJSON(f.name(), []byte(text))
	if err != nil && f.name() == "" {
		// A bare entry names no server: fill the rest, the name is typed.
		_, e, err = config.ParseServerJSON("-", []byte(text))
		name = ""
	}
	if err != nil {
		// Said once: the error may already say it is no server definition.
		why := strings.Replace(err.Error(), config.ErrNotAnEntry.Error()+": ", "", 1)
		f.status, f.bad = "the pasted text is not a server definition: "+present.OneLine(why, 200), true
		return true
	}
	f.fill(name, e)
	f.status, f.bad = "filled from the pasted JSON", false
	f.setFocus(0)
	return true
}

// submit asks to save, when the form is valid.
func (f *serverForm) submit() tea.Cmd {
	if !f.validate() {
		f.status, f.bad = "fix the fields marked ✗ first", true
		return nil
	}
	in := serverIntent{form: f, edit: f.edit != "", name: f.name(), entry: f.entry(), secrets: storages[f.f[fSecrets].choice]}
	if f.edit != "" {
		in.name = f.edit
	}
	if len(f.files) > 0 {
		in.file = f.files[f.f[fFile].choice]
	}
	f.busy, f.status, f.bad = true, "saving…", false
	return f.save(in)
}

// startTry connects to the server as the form describes it.
func (f *serverForm) startTry() tea.Cmd {
	if f.try == nil {
		f.status, f.bad = "trying is not available in this session", true
		return nil
	}
	if !f.validate() {
		f.status, f.bad = "fix the fields marked ✗ first", true
		return nil
	}
	name := f.name()
	if f.edit != "" {
		name = f.edit
	}
	path := "the add form"
	if len(f.files) > 0 {
		path = f.files[f.f[fFile].choice].Path
	}
	srv, err := config.ServerOf(path, name, f.entry(), config.LoadOptions{})
	if err != nil {
		f.status, f.bad = present.OneLine(err.Error(), 300), true
		return nil
	}
	f.busy, f.status, f.bad = true, "trying "+name+"…", false
	return f.try(f, srv)
}

// tried shows how a try went.
func (f *serverForm) tried(summary string, err error) {
	f.busy, f.stopTry = false, nil
	if err != nil {
		f.status, f.bad = "✗ "+present.OneLine(err.Error(), 300), true
		return
	}
	f.status, f.bad = "✓ "+summary, false
}

// saved shows why a save failed; a success closes the form.
func (f *serverForm) failed(err error) {
	f.busy = false
	f.status, f.bad = "not saved: "+present.OneLine(err.Error(), 400), true
}

func (f *serverForm) View() string {
	st := f.c.st
	title := "Add a server"
	if f.edit != "" {
		title = "Edit " + present.Line(f.edit)
	}
	body := []string{st.Dim.Render("Paste a JSON entry to fill the form · ctrl+g tries the server before saving"), ""}
	if f.edit != "" {
		body = append(body, "  "+st.Label.Render(padRight("name", 11))+" "+present.Line(f.edit))
	}
	keep := 0
	for _, i := range f.visible() {
		fl := f.f[i]
		marker, ls := "  ", st.Label
		if i == f.focus {
			marker, ls = "› ", st.LabelFocus
			keep = len(body)
		}
		var value string
		if fl.choices != nil {
			value = "‹ " + present.Line(fl.choices[fl.choice]) + " ›"
			if i != f.focus {
				value = present.Line(fl.choices[fl.choice])
			}
		} else {
			value = "[" + lineView(&fl.in, f.w-20) + "]"
		}
		body = append(body, marker+ls.Render(padRight(fl.label, 11))+" "+value)
		if fl.err != "" {
			body = append(body, strings.Repeat(" ", 14)+st.Error.Render("✗ "+fl.err))
		}
	}
	if len(f.extra) > 0 {
		var names []string
		for _, x := range f.extra {
			names = append(names, x.Name)
		}
		body = append(body, "", st.Dim.Render("also kept: "+present.Line(strings.Join(names, ", "))))
	}
	body = append(body, "")
	switch {
	case f.status == "":
		body = append(body, st.Dim.Render("enter saves · esc leaves without saving"))
	case f.bad:
		body = append(body, wrapStyled(st.Error.Render, f.status, f.w-6)...)
	default:
		body = append(body, wrapStyled(st.Success.Render, f.status, f.w-6)...)
	}
	return modalBox(f.c, title, body, keep, f.w, min(f.h, len(body)+3))
}

// wrapStyled wraps text to width and styles each line.
func wrapStyled(style func(...string) string, text string, width int) []string {
	var out []string
	for _, l := range wrap(present.Line(text), max(width, 20)) {
		out = append(out, style(l))
	}
	return out
}
