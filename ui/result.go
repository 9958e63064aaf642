package ui

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mcpdeck/ui/present"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
)

// resultViewer shows a tool result, or why the call failed, scrollable.
type resultViewer struct {
	c    *common
	done callDoneMsg
	vp   viewport.Model
	w, h int
}

func newResultViewer(c *common, done callDoneMsg) *resultViewer {
	return &resultViewer{c: c, done: done, vp: viewport.New(0, 0)}
}

func (r *resultViewer) SetSize(w, h int) {
	r.w, r.h = modalSize(w, h)
	r.vp.Width, r.vp.Height = r.w-4, r.h-3
	r.vp.SetContent(strings.Join(r.lines(r.w-4), "\n"))
}

func (r *resultViewer) Help() []key.Binding { return r.c.keys.ViewerHelp() }

func (r *resultViewer) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := r.c.keys
	switch {
	case key.Matches(msg, k.Close):
		return nil, nil
	case key.Matches(msg, k.Up):
		r.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		r.vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		r.vp.PageUp()
	case key.Matches(msg, k.PageDown):
		r.vp.PageDown()
	case key.Matches(msg, k.Top):
		r.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		r.vp.GotoBottom()
	case key.Matches(msg, k.Save):
		return r, saveResult(r.done) // record_export.go
	}
	return r, nil
}

// lines renders the result: errors first, then each content block, then
// structured content, then the truncation marker.
func (r *resultViewer) lines(w int) []string {
	st := r.c.st
	d := r.done
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	para := func(text string) {
		for _, l := range strings.Split(present.Block(text), "\n") {
			add(wrap(l, w)...)
		}
	}
	if d.err != nil {
		add(st.Error.Render("✗ the call failed"))
		var ei *runtime.ErrorInfo
		if errors.As(d.err, &ei) {
			para(ei.Message)
			if ei.Code != 0 {
				add(st.Dim.Render(present.Line(fmt.Sprintf("code %d · %s · %s", ei.Code, ei.Server, ei.Method))))
			}
			if len(ei.Data) > 0 {
				add(st.Dim.Render("data:"))
				para(present.PrettyJSON(ei.Data))
			}
			if h := present.Hint(ei, present.TUI); h != "" {
				add("", st.Warning.Render("hint: ")+present.Line(h))
			}
		} else {
			para(d.err.Error())
		}
		return out
	}
	res := d.res
	if res == nil {
		return []string{st.Dim.Render("The call returned no result.")}
	}
	head := fmt.Sprintf("request %d · %s", res.RequestID, present.Latency(res.Duration))
	if res.IsError {
		add(st.Error.Render("✗ the tool reported an error (isError)")+st.Dim.Render(" · "+head), "")
	} else {
		add(st.Success.Render("✓ ok")+st.Dim.Render(" · "+head), "")
	}
	body := st.Text
	if res.IsError {
		body = st.Error
	}
	for i, c := range res.Content {
		head := fmt.Sprintf("── content %d: %s ", i+1, present.Line(c.Type))
		add(st.Faint.Render(head + strings.Repeat("─", max(w-len([]rune(head)), 0))))
		switch c.Type {
		case "text":
			for _, l := range strings.Split(present.Block(c.Text), "\n") {
				for _, wl := range wrap(l, w) {
					add(body.Render(wl))
				}
			}
		case "image", "audio":
			add(st.Info.Render(fmt.Sprintf("[%s] %s, %s", present.Line(c.Type), present.OrDash(present.Line(c.MIMEType)), present.Size(decodedSize(c.Data)))))
		case "resource_link":
			add(st.Info.Render("[link] ") + present.Line(c.Name) + " " + st.Dim.Render(present.Line(c.URI)))
		case "resource":
			if e := c.Resource; e != nil {
				add(st.Info.Render("[resource] ") + present.Line(e.URI) + st.Dim.Render(" "+present.Line(e.MIMEType)))
				if e.Text != "" {
					para(e.Text)
				} else if e.Blob != "" {
					add(st.Dim.Render("binary, " + present.Size(decodedSize(e.Blob))))
				}
			}
		default:
			add(st.Dim.Render("(unknown content type)"))
		}
	}
	if len(res.StructuredContent) > 0 {
		add(st.Faint.Render("── structuredContent " + strings.Repeat("─", max(w-len([]rune("── structuredContent ")), 0))))
		for _, l := range strings.Split(present.PrettyJSON(res.StructuredContent), "\n") {
			add(present.Truncate(l, w))
		}
		if res.StructuredError != "" {
			add(st.Warning.Render("does not match the outputSchema: " + present.Line(res.StructuredError)))
		}
	}
	if res.Truncated {
		add("", st.Warning.Render(fmt.Sprintf("… truncated: the result was %s; only the first part is shown", present.Size(int(res.OriginalSize)))))
	}
	if len(res.Content) == 0 && len(res.StructuredContent) == 0 {
		add(st.Dim.Render("(empty result)"))
	}
	return out
}

func (r *resultViewer) View() string {
	d := r.done
	title := "Result of " + d.tool.Server + " › " + present.Line(d.tool.ServerTool)
	pct := ""
	if r.vp.TotalLineCount() > r.vp.Height {
		pct = fmt.Sprintf("  %3.0f%%", r.vp.ScrollPercent()*100)
	}
	return modalBox(r.c, title+pct, strings.Split(r.vp.View(), "\n"), 0, r.w, r.h)
}

// decodedSize is the size of base64 data once decoded.
func decodedSize(data string) int {
	return base64.StdEncoding.DecodedLen(len(data)) - strings.Count(data[max(len(data)-2, 0):], "=")
}
