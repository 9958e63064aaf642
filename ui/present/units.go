package present

import (
	"fmt"
	"strconv"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Latency is a round trip for people: 412µs, 12ms, 1.2s; a dash for none.
func Latency(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
}

// Millis is a round trip in milliseconds, for tables that line latencies
// up in one unit: 0.4ms, 12.0ms, 250ms (no decimal from 100ms), 1.2s from
// a second on; at most six cells. A round trip that rounds to 0.0ms is
// "<0.1ms" (it was measured, and was fast), none at all a dash.
func Millis(d time.Duration) string {
	const tenth = 100 * time.Microsecond
	switch tenths := (d + tenth/2) / tenth; {
	case d <= 0:
		return "—"
	case tenths == 0:
		return "<0.1ms"
	case tenths < 1000:
		return strconv.FormatFloat(float64(tenths)/10, 'f', 1, 64) + "ms"
	case d < time.Second-time.Millisecond/2:
		return strconv.FormatInt(int64((d+time.Millisecond/2)/time.Millisecond), 10) + "ms"
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
}

// Age is a compact duration: 42s, 5m07s, 1h23m, 3d04h.
func Age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// Size is a byte count for people: 812B, 4.2KiB, 1.1MiB.
func Size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	}
}

// Number is a float without trailing zeros: 1.5, 3, 0.25.
func Number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Tokens is an estimated token count with thousands grouped: ~1,234.
func Tokens(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return "~" + s
}

// ToolCost is what a tool's listing (or a server's) costs an agent's
// context: "~1,234 tokens (4.8KiB)"; the tokens are the runtime's
// estimate (bytes/4).
func ToolCost(c runtime.ToolCost) string {
	return Tokens(c.Tokens) + " tokens (" + Size(c.Bytes) + ")"
}

// SchemaTag marks, after a tool's name, a tool whose input schema is not
// valid JSON Schema (runtime.Tool.InputSchemaError): calls of it are
// refused until the server fixes it, or made without checking
// (--no-validate, ctrl+t). "" for every other tool.
func SchemaTag(t runtime.Tool) string {
	if t.InputSchemaError() == nil {
		return ""
	}
	return " [invalid schema]"
}

// AppMark words what a tool's MCP App (mcp.ToolUIOf) means for it, the
// same in both faces (the CLI's APP column, the TUI's tag after the name):
// "app-only" for a tool only apps may call (a model never sees it), "app
// (model only)" for one with an app that may not call it back, "app" for
// any other tool with an app, "" for a tool without one.
func AppMark(t runtime.Tool) string {
	ui, ok := mcp.ToolUIOf(t.Meta)
	switch {
	case !ok:
		return ""
	case ui.AppOnly():
		return "app-only"
	case ui.HasApp() && !ui.AppCallable():
		return "app (model only)"
	case ui.HasApp():
		return "app"
	}
	return ""
}

// SchemaProblem is one line saying what is wrong with a tool's input
// schema: its first violation, and how many more; "" when it compiles.
func SchemaProblem(t runtime.Tool) string {
	serr := t.InputSchemaError()
	if serr == nil {
		return ""
	}
	lines := serr.Lines()
	p := "its input schema is not valid JSON Schema: " + Line(lines[0])
	if len(lines) > 1 {
		p += " (and " + Count(len(lines)-1, "more problem", "more problems") + ")"
	}
	return p
}

// ToolSwitch is what the operator decided of a tool and whether its
// server changed it since it was approved, in a word for both faces: on,
// off, changed (CHANGED! when the new description reads as instructions
// to the model), or off,changed.
func ToolSwitch(t runtime.Tool) string {
	switch {
	case t.Disabled && t.Changed != nil:
		return "off,changed"
	case t.Disabled:
		return "off"
	case t.Changed != nil && len(t.Changed.InstructionLike) > 0:
		return "CHANGED!"
	case t.Changed != nil:
		return "changed"
	}
	return "on"
}
