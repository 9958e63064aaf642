package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// TestReplayTextWordsEveryKind: replay --text says something about every
// kind of event a recording holds. A gateway's sampling answer (an
// OperatorDecision), a ping (HealthChecked), a remote server's HTTP
// exchange and a resource subscription printed an empty summary.
func TestReplayTextWordsEveryKind(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 42, 16, 0, time.UTC)
	h := runtime.EventHeader{Time: at, Server: "s"}
	samples := map[string]runtime.Event{
		"OperatorDecision":    runtime.OperatorDecision{EventHeader: h, Kind: runtime.DecisionSampling, Subject: "sampling/createMessage", Decision: "answered", By: "probe 0.1.0 (c1, stdio)", Asked: at.Add(-6 * time.Millisecond)},
		"HealthChecked":       runtime.HealthChecked{EventHeader: h, Method: "ping", Latency: 2 * time.Millisecond, OK: true},
		"HTTPExchange":        runtime.HTTPExchange{EventHeader: h, Exchange: mcphttp.Exchange{Method: "POST", URL: "http://127.0.0.1:3901/mcp", Status: 200, Total: 3 * time.Millisecond}},
		"SubscriptionChanged": runtime.SubscriptionChanged{EventHeader: h, URI: "demo://resource/static/1", Subscribed: true},
		"ListenChanged":       runtime.ListenChanged{EventHeader: h, Listen: &runtime.ListenInfo{State: "open"}},
		// Kinds whose words are their fields: these have some.
		"NotificationReceived": runtime.NotificationReceived{EventHeader: h, Method: "notifications/custom"},
		"LogMessage":           runtime.LogMessage{EventHeader: h, Level: "info"},
		"ResourceUpdated":      runtime.ResourceUpdated{EventHeader: h, URI: "demo://resource/static/1"},
		"StderrLine":           runtime.StderrLine{EventHeader: h, Line: "listening"},
		"ProtocolAnomaly":      runtime.ProtocolAnomaly{EventHeader: h, Kind: "unknown-id"},
	}
	for _, k := range runtime.EventKinds() {
		ev, ok := samples[k.Name]
		if !ok {
			v := reflect.New(k.Type).Elem()
			v.FieldByName("EventHeader").Set(reflect.ValueOf(h))
			ev = v.Interface().(runtime.Event)
		}
		got := replaySummary(record.Entry{Kind: k.Name, Event: ev})
		if strings.TrimSpace(got) == "" {
			t.Errorf("replay --text says nothing about a %s", k.Name)
		}
	}
	d := replaySummary(record.Entry{Kind: "OperatorDecision", Event: samples["OperatorDecision"]})
	if d != "sampling/createMessage answered by probe 0.1.0 (c1, stdio) after 6ms" {
		t.Errorf("the decision reads %q, not as the gateway's log line", d)
	}
}
