package cli

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"mcpdeck/runtime/telemetry/otelcoltest"
)

// fromCommand selects the spans one command exported: each run names
// itself in OTEL_RESOURCE_ATTRIBUTES.
func fromCommand(spans []otelcoltest.Span, command string) []otelcoltest.Span {
	var out []otelcoltest.Span
	for _, s := range spans {
		if s.ResourceAttr("mcpdeck.test.command") == command {
			out = append(out, s)
		}
	}
	return out
}

func spanNames(spans []otelcoltest.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasSpans holds once command exported a span of every name in want.
func hasSpans(command string, want ...string) func([]otelcoltest.Span) bool {
	return func(spans []otelcoltest.Span) bool {
		names := spanNames(fromCommand(spans, command))
		for _, w := range want {
			if !slices.Contains(names, w) {
				return false
			}
		}
		return true
	}
}

// otelEnv is the environment of a run that names itself command and
// exports to endpoint (none when endpoint is "").
func otelEnv(h *headless, command, endpoint string, extra ...string) *headless {
	c := *h
	c.env = append(slices.Clone(h.env), "OTEL_RESOURCE_ATTRIBUTES=mcpdeck.test.command="+command,
		"OTEL_SDK_DISABLED=", "OTEL_TRACES_EXPORTER=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", "OTEL_TRACES_SAMPLER=",
		"OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint)
	c.env = append(c.env, extra...)
	return &c
}

// TestEveryCommandExportsSpans runs the commands that talk to servers
// against the demo server with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a
// real OpenTelemetry Collector: each one's spans (the connection, the
// handshake, the listing, its own requests; health checks for monitor)
// reach the collector, flushed before the one-shot commands exit; --otlp
// does the same without the variable, and OTEL_SDK_DISABLED=true turns
// it off.
func TestEveryCommandExportsSpans(t *testing.T) {
	t.Parallel()
	col := otelcoltest.Start(t)
	h := newHeadless(t, map[string]map[string]any{"demo": withPing(srvDemo(t, "0"), "100ms")})
	handshake := []string{"connect", "initialize", "tools/list"}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"call", []string{"call", "demo", "echo", `{"text":"traced"}`}, append(handshake, "tools/call echo")},
		{"servers", []string{"servers"}, handshake},
		{"tools", []string{"tools", "demo"}, handshake},
		{"prompt", []string{"prompts", "demo"}, append(handshake, "prompts/list")},
		{"check", []string{"check", "demo"}, append(handshake, "tools/call echo")},
		{"watch", []string{"watch", "demo", "--for", "1s"}, append(handshake, "ping")},
	} {
		r := otelEnv(h, tc.name, col.Endpoint).run(t, "", tc.args...)
		if r.code != ExitOK && !(tc.name == "check" && r.code == ExitToolError) {
			t.Fatalf("%s: exit %d\n%s", tc.name, r.code, r.stderr)
		}
		// The command has exited: what it exported was flushed before.
		spans := col.WaitSpans(t, tc.name+"'s spans", hasSpans(tc.name, tc.want...))
		for _, s := range fromCommand(spans, tc.name) {
			if s.ResourceAttr("service.name") != "mcpdeck" || s.Attr("mcpdeck.server.name") != "demo" {
				t.Errorf("%s: span %s: resource %v attributes %v", tc.name, s.Name, s.Resource, s.Attributes)
			}
			if s.Kind == 3 && (s.Attr("mcp.method.name") == "" || s.Attr("network.transport") != "pipe") {
				t.Errorf("%s: span %s lacks the conventions' attributes: %v", tc.name, s.Name, s.Attributes)
			}
		}
	}

	// --otlp alone.
	if r := otelEnv(h, "flag", "").run(t, "", "call", "--otlp", col.Endpoint, "demo", "echo", `{"text":"flag"}`); r.code != ExitOK {
		t.Fatalf("call --otlp: exit %d\n%s", r.code, r.stderr)
	}
	col.WaitSpans(t, "call --otlp's spans", hasSpans("flag", append(handshake, "tools/call echo")...))

	// monitor, stopped after a few health checks.
	m := otelEnv(h, "monitor", col.Endpoint)
	run := &monitorRun{running: m.start(t, "monitor"), matched: map[int]bool{}}
	run.waitLog(t, "exporting traces", map[string]string{"endpoint": col.Endpoint + "/v1/traces"})
	run.waitLog(t, "server state changed", map[string]string{"server": "demo", "to": "ready"})
	col.WaitSpans(t, "monitor's health checks", hasSpans("monitor", "connect", "initialize", "ping"))
	if err := run.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := run.wait(t); code != ExitOK {
		t.Fatalf("monitor exited %d", code)
	}

	// Off: OTEL_SDK_DISABLED=true exports nothing; the run after it is the
	// proof the collector was there to receive it.
	if r := otelEnv(h, "disabled", col.Endpoint, "OTEL_SDK_DISABLED=true").run(t, "", "call", "demo", "echo", `{"text":"off"}`); r.code != ExitOK {
		t.Fatalf("disabled: exit %d\n%s", r.code, r.stderr)
	}
	if r := otelEnv(h, "after", col.Endpoint).run(t, "", "servers"); r.code != ExitOK {
		t.Fatalf("after: exit %d\n%s", r.code, r.stderr)
	}
	spans := col.WaitSpans(t, "the run after the disabled one", hasSpans("after", "initialize"))
	if off := fromCommand(spans, "disabled"); len(off) > 0 {
		t.Errorf("OTEL_SDK_DISABLED=true exported %v", spanNames(off))
	}
}

// A collector that is down does not fail the command, nor hold it for
// longer than the OTLP timeout: it says so on stderr and exits with the
// command's own status.
func TestCommandWithCollectorDown(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	r := otelEnv(h, "down", "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TIMEOUT=500").run(t, "", "call", "demo", "echo", `{"text":"x"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "x") || !strings.Contains(r.stderr, "exporting spans failed") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// A bad setting is a usage error naming it, before anything starts.
	r = otelEnv(h, "bad", "", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317").run(t, "", "call", "demo", "echo", `{"text":"x"}`)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc") {
		t.Errorf("grpc: exit %d, %s", r.code, r.stderr)
	}
}

// TestBenchAndDiffExportSpans: bench and diff start telemetry as every
// other command that talks to servers does (sessionOptions), so
// bench --otlp and diff under OTEL_EXPORTER_OTLP_ENDPOINT reach a real
// collector: the handshake and each benchmarked call, each side's lists.
func TestBenchAndDiffExportSpans(t *testing.T) {
	t.Parallel()
	col := otelcoltest.Start(t)
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0"), "other": srvDemo(t, "0")})

	r := otelEnv(h, "bench", "").run(t, "", "bench", "--otlp", col.Endpoint, "demo", "echo", `{"text":"traced"}`, "-n", "5")
	wantCode(t, r, ExitOK)
	spans := col.WaitSpans(t, "bench --otlp's spans", hasSpans("bench", "connect", "initialize", "tools/list", "tools/call echo"))
	calls := 0
	for _, s := range fromCommand(spans, "bench") {
		if s.Name == "tools/call echo" {
			calls++
		}
	}
	if calls < 5 {
		t.Errorf("bench -n 5 exported %d tools/call spans, want one per call (and the warm-up)", calls)
	}

	r = otelEnv(h, "diff", col.Endpoint).run(t, "", "diff", "demo", "other")
	wantCode(t, r, ExitOK)
	spans = col.WaitSpans(t, "diff's spans", hasSpans("diff", "connect", "initialize", "tools/list", "prompts/list"))
	servers := map[string]bool{}
	for _, s := range fromCommand(spans, "diff") {
		servers[s.Attr("mcpdeck.server.name")] = true
	}
	if !servers["demo"] || !servers["other"] {
		t.Errorf("diff exported spans of %v, want both sides", servers)
	}
}
