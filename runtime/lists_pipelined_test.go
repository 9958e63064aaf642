package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"mcpdeck/config"
)

// envListsTogether makes the test binary run listsTogetherServer.
const envListsTogether = "MCPDECK_RUNTIME_TEST_LISTS_TOGETHER"

// listsTogetherServer is a stdio server that answers none of the four list
// requests until it holds all of them: a client that lists one kind after
// another waits on it forever, one that pipelines them is answered at once.
func listsTogetherServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	answer := func(id json.RawMessage, result any) {
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	lists := map[string]any{
		"tools/list":               map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}},
		"prompts/list":             map[string]any{"prompts": []any{map[string]any{"name": "greet"}}},
		"resources/list":           map[string]any{"resources": []any{map[string]any{"uri": "demo://r", "name": "r"}}},
		"resources/templates/list": map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "demo://t/{x}", "name": "t"}}},
	}
	held := map[string]json.RawMessage{}
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			answer(m.ID, map[string]any{
				"protocolVersion": "2025-06-18",
				"capabilities":    map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}},
				"serverInfo":      map[string]any{"name": "lists-together", "version": "1"},
			})
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			held[m.Method] = m.ID
			if len(held) == len(lists) {
				for method, id := range held {
					answer(id, lists[method])
				}
				clear(held)
			}
		case "tools/call":
			answer(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}}})
		default:
			answer(m.ID, map[string]any{})
		}
	}
}

// A server is listed with the four list requests in flight together, and
// what they bring is put together as before.
func TestListsArePipelined(t *testing.T) {
	exe, _ := os.Executable()
	srv := config.Server{
		Name: "s", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envListsTogether: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
	}
	c := newController(t, srv)
	enable(t, c)
	s, ok := c.Snapshot().Server("s")
	if !ok || s.State != StateReady {
		t.Fatalf("server = %+v, want ready (a client listing one kind at a time never gets an answer)", s)
	}
	got := fmt.Sprint(len(s.Tools), len(s.Prompts), len(s.Resources), len(s.Templates))
	if got != "1 1 1 1" {
		t.Errorf("tools, prompts, resources, templates = %s, want one of each", got)
	}
}

// Under ToolsOnly a server that declares prompts and resources is listed
// for its tools alone: a command that only calls tools does not wait for
// the rest.
func TestToolsOnlyListsToolsAlone(t *testing.T) {
	t.Parallel()
	c := New(Options{Config: &config.Config{Servers: []config.Server{demoServer("d")}}, StopGrace: 500 * time.Millisecond, ToolsOnly: true})
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	enable(t, c)
	s := serverOf(t, c, "d")
	var caps struct{ Prompts, Resources json.RawMessage }
	if err := json.Unmarshal(s.Capabilities, &caps); err != nil || caps.Prompts == nil || caps.Resources == nil {
		t.Fatalf("the demo server should declare prompts and resources: %s (%v)", s.Capabilities, err)
	}
	got := fmt.Sprint(len(s.Tools) > 0, len(s.Prompts), len(s.Resources), len(s.Templates))
	if got != "true 0 0 0" {
		t.Errorf("tools listed, prompts, resources, templates = %s, want true 0 0 0", got)
	}
}
