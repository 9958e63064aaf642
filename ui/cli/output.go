package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// printTable writes header and rows as aligned columns. Cells are cleaned
// first (present.Line): a server's text is shown, never obeyed, and a tab
// or newline would break the alignment that makes the table readable.
func printTable(w io.Writer, header []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeRow := func(cells []string) {
		clean := make([]string, len(cells))
		for i, c := range cells {
			clean[i] = present.Line(c)
		}
		fmt.Fprintln(tw, strings.TrimRight(strings.Join(clean, "\t"), "\t"))
	}
	if len(header) > 0 {
		writeRow(header)
	}
	for _, r := range rows {
		writeRow(r)
	}
	_ = tw.Flush()
}

// progressBarWidth is the number of cells of the progress bar.
const progressBarWidth = 30

// progressPrinter shows a call's progress on stderr: a bar redrawn in
// place when stderr is a terminal, one line per notification otherwise,
// so logs and pipes get something readable instead of carriage returns.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	drawn bool // a bar is on screen and must be cleared before other output
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	return &progressPrinter{w: w, tty: isTerminal(w)}
}

func (p *progressPrinter) print(ev runtime.Progress) {
	if !p.tty {
		fmt.Fprintf(p.w, "progress: %s\n", present.ProgressText(ev.Progress, ev.Total, ev.Message))
		return
	}
	bar := ""
	if ev.Total > 0 {
		filled := int(math.Round(math.Min(ev.Progress/ev.Total, 1) * progressBarWidth))
		bar = "[" + strings.Repeat("#", filled) + strings.Repeat(".", progressBarWidth-filled) + "] "
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s%s", bar, present.ProgressText(ev.Progress, ev.Total, ev.Message))
	p.drawn = true
}

// note prints one line of status (a task's state) on its own line,
// clearing the bar first.
func (p *progressPrinter) note(line string) {
	p.finish()
	fmt.Fprintln(p.w, present.Line(line))
}

// finish clears the bar so the result starts on a clean line.
func (p *progressPrinter) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// isTerminal reports whether w is a terminal. /dev/null is a character
// device too, but nobody watches it redraw.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// warnf writes one diagnostic to w as "mcpdeck: message", clean: most
// diagnostics quote what a server said, and it is shown, never obeyed.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "mcpdeck: %s\n", present.Clean(fmt.Sprintf(format, args...)))
}
