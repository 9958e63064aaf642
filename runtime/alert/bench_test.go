package alert

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkEvaluate is one evaluation of the default rules over 100
// servers, a tenth of them failed, each with a minute of health checks
// (one a second) in the latency store: what monitor pays every
// evaluationInterval.
func BenchmarkEvaluate(b *testing.B) {
	lat := NewLatencies()
	servers := make([]Server, 100)
	for i := range servers {
		name := fmt.Sprintf("server-%03d", i)
		servers[i] = Server{Name: name, State: "ready"}
		if i%10 == 0 {
			servers[i].State = "failed"
		}
		for s := range 60 {
			lat.Observe(name, "ping", true, time.Millisecond, t0.Add(-time.Duration(s)*time.Second))
		}
	}
	e := NewEngine(Settings{Labels: map[string]string{LabelInstance: "host1"}}, lat)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Evaluate(t0.Add(time.Duration(i)*time.Millisecond), servers)
	}
}
