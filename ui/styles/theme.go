// Package styles owns every colour and text style of the mcpdeck terminal
// UI: one semantic Theme, one Styles struct built from it, the icon and
// style of each server state and the style of each check status. Nothing
// else in the UI names a colour, so a theme change or NO_COLOR is handled
// in one place.
package styles

import "github.com/charmbracelet/lipgloss"

// Theme names colours by what they mean, not what they look like (the
// gh-dash approach): styles are built from these roles only. Every colour
// is adaptive so the UI reads on light and dark backgrounds alike.
type Theme struct {
	PrimaryText   lipgloss.AdaptiveColor
	SecondaryText lipgloss.AdaptiveColor
	FaintText     lipgloss.AdaptiveColor
	InvertedText  lipgloss.AdaptiveColor
	Accent        lipgloss.AdaptiveColor
	FaintBorder   lipgloss.AdaptiveColor
	FocusBorder   lipgloss.AdaptiveColor
	SelectedBg    lipgloss.AdaptiveColor
	SuccessText   lipgloss.AdaptiveColor
	WarningText   lipgloss.AdaptiveColor
	ErrorText     lipgloss.AdaptiveColor
	InfoText      lipgloss.AdaptiveColor
	OnBg          lipgloss.AdaptiveColor // the MCP ON badge
	OffBg         lipgloss.AdaptiveColor // the MCP OFF badge
}

// DefaultTheme is the built-in theme.
func DefaultTheme() Theme {
	return Theme{
		PrimaryText:   lipgloss.AdaptiveColor{Light: "#1a1a1a", Dark: "#e6e6e6"},
		SecondaryText: lipgloss.AdaptiveColor{Light: "#4a4a4a", Dark: "#b4b4b4"},
		FaintText:     lipgloss.AdaptiveColor{Light: "#9a9a9a", Dark: "#6c6c6c"},
		InvertedText:  lipgloss.AdaptiveColor{Light: "#ffffff", Dark: "#101010"},
		Accent:        lipgloss.AdaptiveColor{Light: "#5b3cc4", Dark: "#a78bfa"},
		FaintBorder:   lipgloss.AdaptiveColor{Light: "#c8c8c8", Dark: "#3c3c3c"},
		FocusBorder:   lipgloss.AdaptiveColor{Light: "#5b3cc4", Dark: "#a78bfa"},
		SelectedBg:    lipgloss.AdaptiveColor{Light: "#e4defa", Dark: "#2e2550"},
		SuccessText:   lipgloss.AdaptiveColor{Light: "#137a2f", Dark: "#4ade80"},
		WarningText:   lipgloss.AdaptiveColor{Light: "#9a5b00", Dark: "#fbbf24"},
		ErrorText:     lipgloss.AdaptiveColor{Light: "#b3261e", Dark: "#f87171"},
		InfoText:      lipgloss.AdaptiveColor{Light: "#0b5cad", Dark: "#60a5fa"},
		OnBg:          lipgloss.AdaptiveColor{Light: "#137a2f", Dark: "#22c55e"},
		OffBg:         lipgloss.AdaptiveColor{Light: "#6b6b6b", Dark: "#525252"},
	}
}
