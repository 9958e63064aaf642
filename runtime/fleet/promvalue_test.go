package fleet

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// TestPromValuesAsModel: the query API's vectors and matrices, and the
// range selectors' durations, read and written as prometheus/common/model
// (which the fleet used before) reads and writes them.
func TestPromValuesAsModel(t *testing.T) {
	for _, d := range []time.Duration{0, time.Millisecond, 1500 * time.Millisecond, 10 * time.Second, 90 * time.Second, 2 * time.Minute,
		25 * time.Hour, 7 * 24 * time.Hour, 90 * 24 * time.Hour, 365 * 24 * time.Hour, 366 * 24 * time.Hour, -30 * time.Second} {
		if got, want := promDuration(d), model.Duration(d).String(); got != want {
			t.Errorf("promDuration(%v) = %q, model writes %q", d, got, want)
		}
	}

	const vec = `[{"metric":{"__name__":"up","host":"a"},"value":[1790000000.781,"1"]},
		{"metric":{"host":"b"},"value":[1790000001,"NaN"]},{"metric":{},"value":[1790000002.5,"+Inf"]},{"metric":{"host":"c"},"value":[-1.25,"-Inf"]}]`
	var ours vector
	var theirs model.Vector
	if err := json.Unmarshal([]byte(vec), &ours); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(vec), &theirs); err != nil {
		t.Fatal(err)
	}
	for i, s := range ours {
		m := theirs[i]
		same := s.Value == float64(m.Value) || (math.IsNaN(s.Value) && math.IsNaN(float64(m.Value)))
		if !same || !s.Timestamp.Equal(m.Timestamp.Time()) || len(s.Metric) != len(m.Metric) || s.Metric["host"] != string(m.Metric["host"]) {
			t.Errorf("sample %d: %+v, model reads %v", i, s, m)
		}
	}

	const mat = `[{"metric":{"mcpdeck_server_name":"demo"},"values":[[1790000000,"0.001"],[1790000015.5,"0.002"]]}]`
	var oursM matrix
	var theirsM model.Matrix
	if err := json.Unmarshal([]byte(mat), &oursM); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mat), &theirsM); err != nil {
		t.Fatal(err)
	}
	if len(oursM) != 1 || oursM[0].Metric[labelServer] != "demo" || len(oursM[0].Values) != 2 {
		t.Fatalf("matrix %+v", oursM)
	}
	for i, p := range oursM[0].Values {
		if m := theirsM[0].Values[i]; p.Value != float64(m.Value) || !p.Timestamp.Equal(m.Timestamp.Time()) {
			t.Errorf("point %d: %+v, model reads %v", i, p, m)
		}
	}
	for _, bad := range []string{`[{"metric":{},"value":[1,2]}]`, `[{"metric":{},"value":[1]}]`, `[{"metric":{},"value":["x","1"]}]`} {
		if err := json.Unmarshal([]byte(bad), &ours); err == nil {
			t.Errorf("%s: decoded without an error", bad)
		}
	}
}
