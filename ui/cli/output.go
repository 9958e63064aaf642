package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"mcpdeck/runtime"
)

// printTable writes header and rows as aligned columns. Cells are cleaned
// of tabs and newlines first, since either would break the alignment that
// makes the table readable.
func printTable(w io.Writer, header []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeRow := func(cells []string) {
		clean := make([]string, len(cells))
		for i, c := range cells {
			clean[i] = oneLine(c)
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

// printJSON writes v as indented JSON followed by a newline. Struct fields
// keep their declared order and map keys are sorted by encoding/json, so
// the output is stable for scripts and golden files.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// oneLine collapses whitespace runs (tabs, newlines) into single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// truncate shortens s to at most n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if n <= 0 || len(r) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
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
		fmt.Fprintf(p.w, "progress: %s\n", progressText(ev))
		return
	}
	bar := ""
	if ev.Total > 0 {
		filled := int(math.Round(math.Min(ev.Progress/ev.Total, 1) * progressBarWidth))
		bar = "[" + strings.Repeat("#", filled) + strings.Repeat(".", progressBarWidth-filled) + "] "
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s%s", bar, progressText(ev))
	p.drawn = true
}

// note prints one line of status (a task's state) on its own line,
// clearing the bar first.
func (p *progressPrinter) note(line string) {
	p.finish()
	fmt.Fprintln(p.w, oneLine(line))
}

// finish clears the bar so the result starts on a clean line.
func (p *progressPrinter) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// progressText is "1.5/3 (50%) message", or "1.5 message" without a total.
func progressText(ev runtime.Progress) string {
	s := formatFloat(ev.Progress)
	if ev.Total > 0 {
		s += fmt.Sprintf("/%s (%d%%)", formatFloat(ev.Total), int(math.Floor(100*math.Min(ev.Progress/ev.Total, 1))))
	}
	if ev.Message != "" {
		s += " " + oneLine(ev.Message)
	}
	return s
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

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
