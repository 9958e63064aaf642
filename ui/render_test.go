package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

func sizedModel(t testing.TB, rt Runtime, w, h int) *Model {
	t.Helper()
	m := newModel(Options{Runtime: rt, Now: uitest.Now}.withDefaults())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func noteEvent(i int) runtime.Event {
	data, _ := json.Marshal(fmt.Sprintf("line %d", i))
	return runtime.LogMessage{EventHeader: runtime.EventHeader{Time: uitest.Clock, Server: "everything"}, Level: "info", Data: data}
}

// Event batches only mark the frame dirty: one frame tick is pending at a
// time, and the frame is rendered again only when it fires.
func TestEventsRenderAtMostOncePerFrame(t *testing.T) {
	t.Parallel()
	m := sizedModel(t, uitest.New(uitest.ReadySnapshot()), 80, 24)
	m.Update(keyMsg("4"))
	before := m.View()
	_, first := m.Update(eventsMsg{events: []runtime.Event{noteEvent(1)}})
	_, second := m.Update(eventsMsg{events: []runtime.Event{noteEvent(2)}})
	if first == nil || second != nil {
		t.Fatalf("frame ticks scheduled: first %v, second %v; want exactly one", first != nil, second != nil)
	}
	if m.View() != before {
		t.Fatal("the frame was re-rendered before its tick")
	}
	m.Update(frameMsg{})
	if after := m.View(); after == before || !strings.Contains(after, "line 2") {
		t.Fatalf("the frame tick did not render the new events:\n%s", after)
	}
	if _, cmd := m.Update(eventsMsg{events: []runtime.Event{noteEvent(3)}}); cmd == nil {
		t.Error("no frame tick scheduled after the previous one fired")
	}
}

func TestResultViewerShowsEveryContentKind(t *testing.T) {
	t.Parallel()
	c := testCommon()
	res := &runtime.Result{
		IsError:   true,
		RequestID: 9,
		Duration:  12 * time.Millisecond,
		Content: []runtime.Content{
			{Type: "text", Text: "disk full\nretry later"},
			{Type: "image", MIMEType: "image/png", Data: strings.Repeat("A", 4096)},
			{Type: "audio", MIMEType: "audio/wav", Data: "AAAA"},
			{Type: "resource_link", Name: "report", URI: "file:///tmp/report.txt"},
			{Type: "resource", Resource: &runtime.EmbeddedContent{URI: "mem://x", MIMEType: "text/plain", Text: "inline"}},
		},
		StructuredContent: json.RawMessage(`{"free":0}`),
		Truncated:         true,
		OriginalSize:      3 << 20,
	}
	v := newResultViewer(c, callDoneMsg{tool: runtime.Tool{Server: "s", ServerTool: "t"}, res: res})
	v.SetSize(100, 40)
	out := strings.Join(v.lines(90), "\n")
	for _, want := range []string{"isError", "request 9 · 12ms", "disk full", "retry later", "[image] image/png, 3.0KiB", "[audio] audio/wav, 3B",
		"[link] report", "[resource] mem://x", "inline", `"free": 0`, "truncated: the result was 3.0MiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("result view lacks %q:\n%s", want, out)
		}
	}
	failed := newResultViewer(c, callDoneMsg{err: fmt.Errorf("calling: %w", &runtime.ErrorInfo{Server: "s", Method: "tools/call", Kind: runtime.KindProtocol, Code: -32602, Message: "unknown tool"})})
	out = strings.Join(failed.lines(90), "\n")
	for _, want := range []string{"the call failed", "unknown tool", "code -32602", "hint: the server rejected"} {
		if !strings.Contains(out, want) {
			t.Errorf("error view lacks %q:\n%s", want, out)
		}
	}
}

func TestRunQuitsAndShutsDown(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	in, typing := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Runtime: rt, Input: in, Output: io.Discard, Now: uitest.Now})
	}()
	if err := rt.WaitAction("elicitor", waitWithin); err != nil {
		t.Fatal(err)
	}
	if _, err := typing.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil after q", err)
		}
	case <-time.After(waitWithin):
		t.Fatal("Run did not return after q")
	}
	typing.Close()
	if err := rt.WaitAction("shutdown", waitWithin); err != nil {
		t.Fatal(err)
	}
	if rt.Snapshot().Enabled {
		t.Error("servers still enabled after Run returned")
	}
}

func TestRunEndsWithContext(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	in, typing := io.Pipe()
	defer typing.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Runtime: rt, Input: in, Output: io.Discard}) }()
	if err := rt.WaitAction("elicitor", waitWithin); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil when its context ends", err)
		}
	case <-time.After(waitWithin):
		t.Fatal("Run did not return when its context ended")
	}
	if err := rt.WaitAction("shutdown", waitWithin); err != nil {
		t.Fatal(err)
	}
}

func TestRunNeedsRuntime(t *testing.T) {
	t.Parallel()
	if err := Run(context.Background(), Options{}); !errors.Is(err, ErrNoRuntime) {
		t.Errorf("Run without a runtime = %v, want ErrNoRuntime", err)
	}
}

// fill50k buffers 50,000 notifications, the store's bound.
func fill50k(m *Model) {
	batch := make([]runtime.Event, 0, 1000)
	for i := range DefaultNotificationLimit {
		data, _ := json.Marshal(fmt.Sprintf("request %d served in %dms from cache shard %d", i, i%97, i%13))
		server := []string{"everything", "weather"}[i%2]
		batch = append(batch, runtime.LogMessage{EventHeader: runtime.EventHeader{Time: uitest.Clock, Server: server},
			Level: []string{"info", "warning", "debug"}[i%3], Logger: "load", Data: data})
		if len(batch) == cap(batch) {
			m.Update(eventsMsg{events: batch})
			batch = batch[:0]
		}
	}
}

// BenchmarkView renders one frame of the notification tab with 50,000
// notifications buffered (the target is under 2 ms per frame).
func BenchmarkView(b *testing.B) {
	for _, size := range sizes {
		for _, profile := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
			name := "nocolor"
			if profile == termenv.TrueColor {
				name = "truecolor"
			}
			b.Run(fmt.Sprintf("%dx%d/%s", size.w, size.h, name), func(b *testing.B) {
				lipgloss.SetColorProfile(profile)
				defer lipgloss.SetColorProfile(termenv.Ascii)
				benchView(b, size.w, size.h)
			})
		}
	}
}

func benchView(b *testing.B, w, h int) {
	m := sizedModel(b, uitest.New(uitest.ReadySnapshot()), w, h)
	m.Update(keyMsg("4"))
	fill50k(m)
	b.ResetTimer()
	for range b.N {
		m.stale = true
		_ = m.View()
	}
}

// BenchmarkFilterKeystroke is one typed filter character with 50,000
// notifications buffered: the rescan plus the frame.
func BenchmarkFilterKeystroke(b *testing.B) {
	m := sizedModel(b, uitest.New(uitest.ReadySnapshot()), 140, 40)
	m.Update(keyMsg("4"))
	fill50k(m)
	m.Update(keyMsg("/"))
	b.ResetTimer()
	for i := range b.N {
		k := "x"
		if i%2 == 1 {
			k = "backspace"
		}
		m.Update(keyMsg(k))
		_ = m.View()
	}
}

// BenchmarkNavigate is one cursor move in the paused stream.
func BenchmarkNavigate(b *testing.B) {
	m := sizedModel(b, uitest.New(uitest.ReadySnapshot()), 140, 40)
	m.Update(keyMsg("4"))
	fill50k(m)
	m.Update(keyMsg("tab"))
	b.ResetTimer()
	for i := range b.N {
		k := "k"
		if i%2 == 1 {
			k = "j"
		}
		m.Update(keyMsg(k))
		_ = m.View()
	}
}
