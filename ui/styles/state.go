package styles

import (
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/runtime"
)

// StateIcon is the one-cell icon of a server state. Icons differ in shape,
// not only colour, so states stay distinguishable under NO_COLOR.
func StateIcon(s runtime.State) string {
	switch s {
	case runtime.StateReady:
		return "●"
	case runtime.StateDegraded:
		return "◐"
	case runtime.StateStarting, runtime.StateInitializing, runtime.StateListing:
		return "◌"
	case runtime.StateFailed:
		return "✗"
	case runtime.StateStopping:
		return "◍"
	default: // disabled, stopped
		return "○"
	}
}

// State is the style of a server state.
func (s Styles) State(st runtime.State) lipgloss.Style {
	switch st {
	case runtime.StateReady:
		return s.Success
	case runtime.StateDegraded:
		return s.Warning
	case runtime.StateStarting, runtime.StateInitializing, runtime.StateListing, runtime.StateStopping:
		return s.Info
	case runtime.StateFailed:
		return s.Error
	default:
		return s.Faint
	}
}

// Level is the style of a log level (notifications/message).
func (s Styles) Level(level string) lipgloss.Style {
	switch level {
	case "warning":
		return s.Warning
	case "error", "critical", "alert", "emergency":
		return s.Error
	case "debug":
		return s.Faint
	case "notice":
		return s.Info
	default:
		return s.Dim
	}
}
