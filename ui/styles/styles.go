package styles

import (
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles is every style the UI uses, built once from a Theme and handed to
// every pane through the root model.
type Styles struct {
	Theme Theme

	Text    lipgloss.Style
	Dim     lipgloss.Style // secondary information
	Faint   lipgloss.Style // disabled rows, rules, placeholders
	Bold    lipgloss.Style
	Accent  lipgloss.Style
	Error   lipgloss.Style
	Warning lipgloss.Style
	Success lipgloss.Style
	Info    lipgloss.Style

	MCPOn  lipgloss.Style // the header badge when MCP is on
	MCPOff lipgloss.Style // the header badge when MCP is off

	Pane        lipgloss.Style // an unfocused pane's border
	PaneFocused lipgloss.Style // the focused pane's border
	PaneTitle   lipgloss.Style
	Selected    lipgloss.Style // the selected row
	ColumnHead  lipgloss.Style

	TabActive   lipgloss.Style
	TabInactive lipgloss.Style

	Modal      lipgloss.Style // dialogs and forms drawn over the body
	ModalTitle lipgloss.Style
	Label      lipgloss.Style
	LabelFocus lipgloss.Style
	Required   lipgloss.Style
	Cursor     lipgloss.Style

	BarFull  lipgloss.Style
	BarEmpty lipgloss.Style

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style
	Status   lipgloss.Style
}

// New builds the styles of a theme.
func New(t Theme) Styles {
	s := lipgloss.NewStyle
	border := lipgloss.RoundedBorder()
	return Styles{
		Theme:   t,
		Text:    s().Foreground(t.PrimaryText),
		Dim:     s().Foreground(t.SecondaryText),
		Faint:   s().Foreground(t.FaintText),
		Bold:    s().Foreground(t.PrimaryText).Bold(true),
		Accent:  s().Foreground(t.Accent).Bold(true),
		Error:   s().Foreground(t.ErrorText),
		Warning: s().Foreground(t.WarningText),
		Success: s().Foreground(t.SuccessText),
		Info:    s().Foreground(t.InfoText),

		MCPOn:  s().Foreground(t.InvertedText).Background(t.OnBg).Bold(true),
		MCPOff: s().Foreground(t.InvertedText).Background(t.OffBg).Bold(true),

		Pane:        s().Border(border).BorderForeground(t.FaintBorder),
		PaneFocused: s().Border(border).BorderForeground(t.FocusBorder),
		PaneTitle:   s().Foreground(t.Accent).Bold(true),
		Selected:    s().Background(t.SelectedBg).Foreground(t.PrimaryText),
		ColumnHead:  s().Foreground(t.SecondaryText).Bold(true),

		TabActive:   s().Foreground(t.Accent).Bold(true).Underline(true),
		TabInactive: s().Foreground(t.SecondaryText),

		Modal:      s().Border(lipgloss.RoundedBorder()).BorderForeground(t.FocusBorder).Padding(0, 1),
		ModalTitle: s().Foreground(t.Accent).Bold(true),
		Label:      s().Foreground(t.SecondaryText),
		LabelFocus: s().Foreground(t.Accent).Bold(true),
		Required:   s().Foreground(t.ErrorText).Bold(true),
		Cursor:     s().Reverse(true),

		BarFull:  s().Foreground(t.Accent),
		BarEmpty: s().Foreground(t.FaintText),

		HelpKey:  s().Foreground(t.SecondaryText).Bold(true),
		HelpDesc: s().Foreground(t.FaintText),
		HelpSep:  s().Foreground(t.FaintBorder),
		Status:   s().Foreground(t.SecondaryText),
	}
}

// Default is New(DefaultTheme()).
func Default() Styles { return New(DefaultTheme()) }

// RespectNoColor drops colour output when the NO_COLOR convention asks
// for it (https://no-color.org): any non-empty value. It reports whether
// it did. The UI must stay readable then, which is why every state also
// has an icon and the MCP badge has words, never colour alone.
func RespectNoColor() bool {
	if os.Getenv("NO_COLOR") == "" {
		return false
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	return true
}
