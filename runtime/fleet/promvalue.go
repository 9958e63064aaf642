package fleet

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The query API's result values, decoded as Prometheus writes them
// (https://prometheus.io/docs/prometheus/latest/querying/api/#expression-query-result-formats):
// what prometheus/common/model decoded before, without linking it and the
// protobuf runtime under it into every mcpdeck start.

// valueType is a result's resultType.
type valueType string

const (
	valScalar valueType = "scalar"
	valVector valueType = "vector"
	valMatrix valueType = "matrix"
)

// labelSet is a series' labels.
type labelSet map[string]string

// sample is one series of an instant vector: "value": [time, "value"].
type sample struct {
	Metric labelSet `json:"metric"`
	point
}

func (s *sample) UnmarshalJSON(b []byte) error {
	var raw struct {
		Metric labelSet        `json:"metric"`
		Value  json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.Metric = raw.Metric
	if raw.Value == nil {
		return nil // a native histogram sample: none of the fleet's queries gives one
	}
	return json.Unmarshal(raw.Value, &s.point)
}

// series is one series of a range vector: "values": [[time, "value"], ...].
type series struct {
	Metric labelSet `json:"metric"`
	Values []point  `json:"values"`
}

type (
	vector []sample
	matrix []series
)

// point is [time, "value"]: Unix seconds as a number (to the millisecond)
// and the value as a string, which may be NaN, +Inf or -Inf.
type point struct {
	Timestamp time.Time
	Value     float64
}

func (p *point) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("a sample %s: want [time, \"value\"]", b)
	}
	ts, err := unixMillis(string(pair[0]))
	if err != nil {
		return fmt.Errorf("a sample's time %s: %w", pair[0], err)
	}
	var v string
	if err := json.Unmarshal(pair[1], &v); err != nil {
		return fmt.Errorf("a sample's value %s: want a string", pair[1])
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("a sample's value %q: %w", v, err)
	}
	p.Timestamp, p.Value = ts, f
	return nil
}

// unixMillis reads Unix seconds with up to three decimals without going
// through a float, as Prometheus' own decoder does, so a millisecond
// timestamp reads back exactly.
func unixMillis(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	var ms int64
	if frac != "" {
		frac = (frac + "000")[:3]
		if ms, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, err
		}
		if strings.HasPrefix(sec, "-") {
			ms = -ms
		}
	}
	return time.UnixMilli(n*1000 + ms), nil
}

// promDuration writes a duration as PromQL reads it in a range selector:
// "90s" as 1m30s, whole years and weeks as y and w (as
// prometheus/common/model's Duration wrote it).
func promDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms == 0 {
		return "0s"
	}
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	var b strings.Builder
	unit := func(name string, mult int64, exact bool) {
		if exact && ms%mult != 0 {
			return
		}
		if v := ms / mult; v > 0 {
			fmt.Fprintf(&b, "%d%s", v, name)
			ms -= v * mult
		}
	}
	unit("y", 1000*60*60*24*365, true)
	unit("w", 1000*60*60*24*7, true)
	unit("d", 1000*60*60*24, false)
	unit("h", 1000*60*60, false)
	unit("m", 1000*60, false)
	unit("s", 1000, false)
	unit("ms", 1, false)
	return sign + b.String()
}
