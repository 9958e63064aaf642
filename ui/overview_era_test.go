package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/uitest"
)

// The overview says which era a server speaks, how that was decided, what
// its listen stream carries, and which tools were left out.
func TestOverviewShowsTheEra(t *testing.T) {
	t.Parallel()
	snap := &runtime.Snapshot{Enabled: true, Servers: []runtime.ServerSnapshot{{
		Name: "m", State: runtime.StateReady, Transport: "http", Era: runtime.EraModern, ProtocolVersion: "2026-07-28",
		EraReason:    "server/discover answered after 3.02s, later than the 2s fallback that sent initialize, which the server accepted (pinning that process to the legacy revisions); started it again for the modern era; server/discover answered; speaking 2026-07-28",
		EraDecision:  runtime.EraSwitched,
		Listen:       &runtime.ListenInfo{State: runtime.ListenOpen, Granted: mcp.SubscriptionFilter{ToolsListChanged: true}},
		DroppedTools: []runtime.DroppedTool{{Name: "bad", Reason: "x-mcp-header on an object"}},
	}}}
	m := sizedModel(t, uitest.New(snap), 140, 40)
	text := ansi.Strip(strings.Join(m.tabs[0].(*overviewTab).lines(), "\n"))
	for _, want := range []string{"protocol     modern 2026-07-28 · switched: late answer\n", "era reason   server/discover answered after 3.02s", "speaking 2026-07-28", "listen       open · tools", "dropped      bad: x-mcp-header on an object"} {
		if !strings.Contains(text, want) {
			t.Errorf("the overview lacks %q:\n%s", want, text)
		}
	}
}
