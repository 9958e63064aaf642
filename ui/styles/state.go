package styles

import (
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/runtime"
	"mcpdeck/runtime/check"
	"mcpdeck/runtime/mcp"
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
	switch rank := mcp.LevelRank(level); {
	case level == "warning":
		return s.Warning
	case rank >= mcp.LevelRank("error") && rank < len(mcp.LogLevels):
		return s.Error
	case level == "debug":
		return s.Faint
	case level == "notice":
		return s.Info
	default:
		return s.Dim
	}
}

// CheckStatus is the style of a compatibility check item's status. The
// status is always printed as its word (PASS, WARN, FAIL, SKIP), so the
// colour only reinforces it.
func (s Styles) CheckStatus(st check.Status) lipgloss.Style {
	switch st {
	case check.Pass:
		return s.Success
	case check.Warn:
		return s.Warning
	case check.Fail:
		return s.Error
	default: // skipped
		return s.Faint
	}
}

// InvalidIcon marks a server whose configuration is invalid: it is never
// started, and its row says why.
const InvalidIcon = "⊘"
