package runtime

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchTools are servers×perServer listed tools with schemas of a
// realistic size (a few properties each).
func benchTools(servers, perServer int) []Tool {
	var out []Tool
	for s := range servers {
		for i := range perServer {
			name := fmt.Sprintf("tool_%d", i)
			out = append(out, withDefinition(Tool{Server: fmt.Sprintf("s%d", s), ServerTool: name, Name: fmt.Sprintf("s%d__%s", s, name),
				Description: "Does one thing with the given arguments and returns the result as text and structured content.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"A path."},"limit":{"type":"integer","minimum":1,"maximum":100},"recursive":{"type":"boolean"}},"required":["path"]}`)}))
		}
	}
	return out
}

// BenchmarkPublishDecisions is what applying the tool decisions adds to a
// publication of 50 servers with 40 tools each: every tool pinned, one in
// ten switched off, one changed per server.
func BenchmarkPublishDecisions(b *testing.B) {
	tools := benchTools(50, 40)
	p := NewToolPolicy()
	ids := map[string]string{}
	for s := range 50 {
		server := fmt.Sprintf("s%d", s)
		ids[server] = "id-" + server
		own := tools[s*40 : (s+1)*40]
		_ = p.observe(ids[server], server, own, nil)
		var off []string
		for i := 0; i < 40; i += 10 {
			off = append(off, own[i].ServerTool)
		}
		_ = p.setDisabled(ids[server], server, off, true)
	}
	for s := range 50 { // one changed tool a server
		tools[s*40+1].Description += " Changed."
		tools[s*40+1] = withDefinition(tools[s*40+1])
	}
	for _, bc := range []struct {
		name string
		st   *policyState
	}{{"none", (*ToolPolicy)(nil).state()}, {"pinned", p.state()}} {
		b.Run(bc.name, func(b *testing.B) {
			snap := make([]Tool, len(tools))
			for b.Loop() {
				copy(snap, tools)
				bc.st.apply(snap, ids)
			}
		})
	}
}

// BenchmarkObserveUnchanged is a relisting that pins nothing new (a
// reconnect): what it costs the session's goroutine, with the file.
func BenchmarkObserveUnchanged(b *testing.B) {
	p, err := OpenToolPolicy(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tools := benchTools(1, 40)
	if err := p.observe("id", "s0", tools, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = p.observe("id", "s0", tools, nil)
	}
}

// BenchmarkListedTool is what listing one tool now costs more: its cost
// and the hash of its canonical definition.
func BenchmarkListedTool(b *testing.B) {
	t := benchTools(1, 1)[0]
	for b.Loop() {
		_ = withDefinition(t)
	}
}
