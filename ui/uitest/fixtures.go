package uitest

import (
	"encoding/json"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Clock is the fixed time of every fixture; goldens render ages against it.
var Clock = time.Date(2025, 11, 25, 12, 0, 0, 0, time.UTC)

// Now returns Clock: pass it as the UI's clock for stable goldens.
func Now() time.Time { return Clock }

// EverythingTools are the fixture tools of the "everything" server,
// covering every kind of field the tool form generates.
func EverythingTools() []runtime.Tool {
	t := func(name, desc, schema string) runtime.Tool {
		return listed(runtime.Tool{Name: "everything__" + name, Server: "everything", ServerTool: name, Description: desc, InputSchema: raw(schema)})
	}
	return []runtime.Tool{
		t("add", "Adds two numbers.", `{"type":"object","properties":{"a":{"type":"number","description":"first addend"},"b":{"type":"number","description":"second addend"}},"required":["a","b"]}`),
		t("configure", "Exercises every form field kind.", `{"type":"object","properties":{
			"name":{"type":"string","description":"display name","default":"deck"},
			"count":{"type":"integer","minimum":1,"maximum":10,"default":3},
			"verbose":{"type":"boolean","description":"log more"},
			"mode":{"type":"string","enum":["fast","safe","paranoid"],"default":"safe"},
			"tags":{"type":"array","items":{"type":"string"},"description":"comma separated"},
			"limits":{"type":"object","properties":{"cpu":{"type":"number"},"memory":{"type":"integer","description":"MiB"}},"required":["memory"]}
		},"required":["name","limits"]}`),
		t("echo", "Echoes back the input.", `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`),
		t("longRunningOperation", "Demonstrates progress notifications.", `{"type":"object","properties":{"duration":{"type":"number","default":10,"description":"seconds"},"steps":{"type":"integer","default":5}}}`),
	}
}

// WeatherTools are the fixture tools of the "weather" server.
func WeatherTools() []runtime.Tool {
	return []runtime.Tool{listed(runtime.Tool{
		Name: "weather__get_forecast", Server: "weather", ServerTool: "get_forecast",
		Description: "Forecast for a city.",
		InputSchema: raw(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}`),
		// An MCP App: the forecast has a view, and the server says so in
		// _meta as it sent it.
		Annotations: raw(`{"readOnlyHint":true,"openWorldHint":true}`),
		Meta:        raw(`{"ui":{"resourceUri":"ui://weather/forecast.html","visibility":["model","app"]},"com.example/owner":"weather-team"}`),
	})}
}

// listed is a fixture tool as the runtime lists it: its cost and hash
// from its definition, pinned as listed (a first listing).
func listed(t runtime.Tool) runtime.Tool {
	t = runtime.Listed(t)
	t.PinnedHash = t.Hash
	return t
}

// WithTotals sets each server's tool cost totals from its tools, as a
// publication does (runtime.ToolTotals).
func WithTotals(servers []runtime.ServerSnapshot) []runtime.ServerSnapshot {
	for i := range servers {
		servers[i].ToolCost, servers[i].ToolCostOn = runtime.ToolTotals(servers[i].Tools)
	}
	return servers
}

func pings(base time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = base + time.Duration((i*7)%5)*base/3
	}
	return out
}

// Servers are the fixture servers as configured, MCP off: everything
// (stdio), weather (http), broken (stdio, fails on start) and notes
// (disabled in its file).
func Servers() []runtime.ServerSnapshot {
	return WithTotals([]runtime.ServerSnapshot{
		{Name: "broken", Transport: "stdio", Target: "./bin/broken-server --token ••••••", Source: "/home/dev/proj/.mcp.json", Scope: "project", Enabled: true, ConfigEnabled: true, State: runtime.StateDisabled},
		{Name: "everything", Transport: "stdio", Target: "npx -y @modelcontextprotocol/server-everything", Source: "/home/dev/.config/mcpdeck/mcp.json", Scope: "user", Enabled: true, ConfigEnabled: true, State: runtime.StateDisabled, Tools: EverythingTools()},
		{Name: "notes", Transport: "sse", Target: "http://localhost:8931/sse", Source: "/home/dev/.config/mcpdeck/mcp.json", Scope: "user", Enabled: false, State: runtime.StateDisabled},
		{Name: "weather", Transport: "http", Target: "https://weather.example.com/mcp", Source: "/home/dev/.config/mcpdeck/mcp.json", Scope: "user", Enabled: true, ConfigEnabled: true, State: runtime.StateDisabled, Tools: WeatherTools()},
	})
}

// OffSnapshot is the session before MCP is switched on.
func OffSnapshot() *runtime.Snapshot {
	return &runtime.Snapshot{
		Generation: 1, At: Clock, Enabled: false,
		Sources: []string{"/home/dev/.config/mcpdeck/mcp.json", "/home/dev/proj/.mcp.json"},
		Servers: Servers(),
	}
}

// ReadySnapshot is the session with MCP on: everything and weather ready,
// broken failed with an actionable error, notes disabled.
func ReadySnapshot() *runtime.Snapshot {
	s := OffSnapshot()
	s.Generation = 2
	s.Enabled = true
	for i := range s.Servers {
		srv := &s.Servers[i]
		switch srv.Name {
		case "everything":
			srv.State = runtime.StateReady
			srv.PID = 4242
			srv.StartedAt = Clock.Add(-83 * time.Minute)
			srv.ServerInfo = runtime.Implementation{Name: "example-servers/everything", Version: "1.0.0"}
			srv.ProtocolVersion = "2025-06-18"
			srv.Era, srv.EraDecision = runtime.EraLegacy, runtime.EraLegacyError
			srv.EraReason = "server/discover answered error -32601 (Method not found); using initialize"
			srv.Capabilities = raw(`{"logging":{},"completions":{},"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true}}`)
			srv.Resources = EverythingResources()
			srv.Templates = EverythingTemplates()
			srv.Prompts = EverythingPrompts()
			srv.LogLevel = "info"
			srv.Instructions = "Testing server: exercises every MCP feature."
			srv.Ping = runtime.PingStats{Last: 2 * time.Millisecond, EWMA: 2 * time.Millisecond, P50: 2 * time.Millisecond, P95: 3 * time.Millisecond, Recent: pings(2*time.Millisecond, 40), LastAt: Clock}
			srv.Counters.Calls = 12
		case "weather":
			srv.State = runtime.StateReady
			srv.StartedAt = Clock.Add(-5*time.Minute - 7*time.Second)
			srv.Restarts = 1
			srv.ServerInfo = runtime.Implementation{Name: "weather", Version: "0.3.1"}
			srv.ProtocolVersion = "2025-11-25"
			srv.Capabilities = raw(`{"tools":{}}`)
			srv.Ping = runtime.PingStats{Last: 48 * time.Millisecond, EWMA: 51 * time.Millisecond, P50: 50 * time.Millisecond, P95: 71 * time.Millisecond, Recent: pings(45*time.Millisecond, 30), LastAt: Clock}
		case "broken":
			srv.State = runtime.StateFailed
			srv.Reason = "process exited with status 1 before initialize"
			srv.Reconnectable = true
			srv.Restarts = 3
			srv.LastError = &runtime.ErrorInfo{
				Kind: runtime.KindExited, Server: "broken", Method: "initialize",
				Message: "process exited with status 1 before initialize; last stderr line: exit status 1", // as the runtime says an exit, stderr included
				At:      Clock.Add(-42 * time.Second),
			}
			srv.Stderr = []string{"broken-server: missing BROKEN_API_KEY", "exit status 1"}
		}
	}
	s.Tools = append(EverythingTools(), WeatherTools()...)
	return s
}

// EverythingResources are the fixture resources of "everything": text,
// JSON and binary.
func EverythingResources() []runtime.Resource {
	return []runtime.Resource{
		{Server: "everything", Resource: mcp.Resource{URI: "test://static/resource/1", Name: "Resource 1", MIMEType: "text/plain", Description: "A plain text resource"}},
		{Server: "everything", Resource: mcp.Resource{URI: "test://static/resource/2", Name: "Resource 2", MIMEType: "application/octet-stream", Description: "A binary resource"}},
		{Server: "everything", Resource: mcp.Resource{URI: "test://config.json", Name: "config", MIMEType: "application/json", Description: "Settings as JSON"}},
	}
}

// EverythingTemplates are the fixture resource templates of "everything".
func EverythingTemplates() []runtime.ResourceTemplate {
	return []runtime.ResourceTemplate{
		{Server: "everything", ResourceTemplate: mcp.ResourceTemplate{URITemplate: "test://greeting/{name}", Name: "greeting", Description: "A greeting for {name}", MIMEType: "text/plain"}},
	}
}

// EverythingPrompts are the fixture prompts of "everything".
func EverythingPrompts() []runtime.Prompt {
	return []runtime.Prompt{
		{Server: "everything", Prompt: mcp.Prompt{Name: "simple_prompt", Description: "A prompt without arguments"}},
		{Server: "everything", Prompt: mcp.Prompt{Name: "complex_prompt", Description: "A prompt with arguments", Arguments: []runtime.PromptArgument{
			{Name: "temperature", Description: "Temperature setting", Required: true}, {Name: "style", Description: "Output style"}}}},
	}
}

// EverythingContents are the fixture contents resources/read answers.
func EverythingContents() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"test://static/resource/2": raw(`{"contents":[{"uri":"test://static/resource/2","mimeType":"application/octet-stream","blob":"AAECAwQFBgcICQ=="}]}`),
		"test://config.json":       raw(`{"contents":[{"uri":"test://config.json","mimeType":"application/json","text":"{\"debug\":true,\"level\":3}"}]}`),
		"test://missing":           nil,
	}
}

// Names are what the fake completes arguments from.
var Names = []string{"Ada", "Alan", "Barbara", "Grace", "Linus"}
