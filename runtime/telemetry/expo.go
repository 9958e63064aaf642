package telemetry

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// This file writes the Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), from
// what an sdkmetric.ManualReader collects: the same bytes the SDK's
// Prometheus exporter and client_golang wrote, without linking either
// (their package init, procfs's and runtime/metrics' were in every start
// of mcpdeck). Names and labels are translated by otlptranslator with the
// strategy that exporter used (UnderscoreEscapingWithSuffixes).

// expoContentType is the Content-Type of the exposition, as client_golang
// sent it.
const expoContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

// promFamily is one metric family: a name, its HELP and TYPE, its series.
type promFamily struct {
	name, help, typ string // typ: counter, gauge, histogram, summary
	series          []promSeries
}

// promSeries is one series: its labels, sorted by name, and its value
// (counter, gauge) or its distribution (histogram, summary).
type promSeries struct {
	labels []promLabel
	value  float64
	dist   *promDist
}

type promLabel struct{ name, value string }

// promDist is a histogram's cumulative buckets (le bounds, +Inf excluded)
// or a summary's quantiles, with the sum and count both have.
type promDist struct {
	bounds    []float64
	cumulated []uint64
	quantiles [][2]float64 // quantile, value
	sum       float64
	count     uint64
}

var (
	metricNamer = otlptranslator.NewMetricNamer("", otlptranslator.UnderscoreEscapingWithSuffixes)
	labelNamer  = otlptranslator.LabelNamer{}
)

// promLabels translates an attribute set into labels sorted by name.
// Attributes whose names translate alike (a.b and a_b) share one label,
// their values sorted and joined with ";", as the SDK's exporter did.
func promLabels(set attribute.Set) []promLabel {
	labels := make([]promLabel, 0, set.Len())
	for it := set.Iter(); it.Next(); {
		kv := it.Attribute()
		name, err := labelNamer.Build(string(kv.Key))
		if err != nil {
			continue // an empty key: no label can carry it
		}
		labels = append(labels, promLabel{name, kv.Value.String()})
	}
	slices.SortStableFunc(labels, func(a, b promLabel) int { return strings.Compare(a.name, b.name) })
	out := labels[:0]
	for i := 0; i < len(labels); {
		j := i + 1
		for j < len(labels) && labels[j].name == labels[i].name {
			j++
		}
		if j == i+1 {
			out = append(out, labels[i])
		} else {
			vals := make([]string, 0, j-i)
			for _, l := range labels[i:j] {
				vals = append(vals, l.value)
			}
			slices.Sort(vals)
			out = append(out, promLabel{labels[i].name, strings.Join(vals, ";")})
		}
		i = j
	}
	return out
}

// targetInfo is the target_info family: the resource's attributes as
// labels of one gauge at 1.
func targetInfo(res *resource.Resource) promFamily {
	return promFamily{name: "target_info", help: "Target metadata", typ: "gauge",
		series: []promSeries{{labels: promLabels(*res.Set()), value: 1}}}
}

// sdkFamilies turns collected OTel metrics into families.
func sdkFamilies(rm *metricdata.ResourceMetrics, fams []promFamily) []promFamily {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if f, ok := sdkFamily(m); ok && len(f.series) > 0 {
				fams = append(fams, f)
			}
		}
	}
	return fams
}

func sdkFamily(m metricdata.Metrics) (promFamily, bool) {
	var f promFamily
	var typ otlptranslator.MetricType
	switch d := m.Data.(type) {
	case metricdata.Histogram[float64]:
		f.typ, typ, f.series = "histogram", otlptranslator.MetricTypeHistogram, histSeries(d.DataPoints)
	case metricdata.Histogram[int64]:
		f.typ, typ, f.series = "histogram", otlptranslator.MetricTypeHistogram, histSeries(d.DataPoints)
	case metricdata.Sum[int64]:
		f.typ, typ = sumType(d.IsMonotonic)
		f.series = pointSeries(d.DataPoints)
	case metricdata.Sum[float64]:
		f.typ, typ = sumType(d.IsMonotonic)
		f.series = pointSeries(d.DataPoints)
	case metricdata.Gauge[int64]:
		f.typ, typ, f.series = "gauge", otlptranslator.MetricTypeGauge, pointSeries(d.DataPoints)
	case metricdata.Gauge[float64]:
		f.typ, typ, f.series = "gauge", otlptranslator.MetricTypeGauge, pointSeries(d.DataPoints)
	default:
		return f, false // no instrument of this package makes another kind
	}
	name, err := metricNamer.Build(otlptranslator.Metric{Name: m.Name, Unit: m.Unit, Type: typ})
	if err != nil {
		return f, false
	}
	f.name, f.help = name, m.Description
	return f, true
}

func sumType(monotonic bool) (string, otlptranslator.MetricType) {
	if monotonic {
		return "counter", otlptranslator.MetricTypeMonotonicCounter
	}
	return "gauge", otlptranslator.MetricTypeNonMonotonicCounter
}

func pointSeries[N int64 | float64](points []metricdata.DataPoint[N]) []promSeries {
	out := make([]promSeries, 0, len(points))
	for _, p := range points {
		out = append(out, promSeries{labels: promLabels(p.Attributes), value: float64(p.Value)})
	}
	return out
}

func histSeries[N int64 | float64](points []metricdata.HistogramDataPoint[N]) []promSeries {
	out := make([]promSeries, 0, len(points))
	for _, p := range points {
		d := &promDist{bounds: p.Bounds, cumulated: make([]uint64, len(p.Bounds)), sum: float64(p.Sum), count: p.Count}
		var n uint64
		for i := range p.Bounds {
			n += p.BucketCounts[i]
			d.cumulated[i] = n
		}
		out = append(out, promSeries{labels: promLabels(p.Attributes), dist: d})
	}
	return out
}

// writeExposition writes families in the text format, sorted by name, and
// each family's series as client_golang sorted them: fewer labels first,
// then by the label values in label-name order.
func writeExposition(b []byte, fams []promFamily) []byte {
	slices.SortFunc(fams, func(a, b promFamily) int { return strings.Compare(a.name, b.name) })
	for _, f := range fams {
		slices.SortStableFunc(f.series, compareSeries)
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscaped(b, f.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = append(b, f.typ...)
		b = append(b, '\n')
		for _, s := range f.series {
			switch {
			case s.dist == nil:
				b = appendSample(b, f.name, "", s.labels, "", 0, s.value)
			case f.typ == "summary":
				for _, q := range s.dist.quantiles {
					b = appendSample(b, f.name, "", s.labels, "quantile", q[0], q[1])
				}
				b = appendSample(b, f.name, "_sum", s.labels, "", 0, s.dist.sum)
				b = appendSample(b, f.name, "_count", s.labels, "", 0, float64(s.dist.count))
			default:
				for i, le := range s.dist.bounds {
					b = appendSample(b, f.name, "_bucket", s.labels, "le", le, float64(s.dist.cumulated[i]))
				}
				b = appendSample(b, f.name, "_bucket", s.labels, "le", math.Inf(1), float64(s.dist.count))
				b = appendSample(b, f.name, "_sum", s.labels, "", 0, s.dist.sum)
				b = appendSample(b, f.name, "_count", s.labels, "", 0, float64(s.dist.count))
			}
		}
	}
	return b
}

func compareSeries(a, b promSeries) int {
	if c := cmp.Compare(len(a.labels), len(b.labels)); c != 0 {
		return c
	}
	for i := range a.labels {
		if c := strings.Compare(a.labels[i].value, b.labels[i].value); c != 0 {
			return c
		}
	}
	return 0
}

// appendSample writes one line: name+suffix, the labels and the extra one
// (le, quantile) if named, and the value.
func appendSample(b []byte, name, suffix string, labels []promLabel, extra string, extraValue, v float64) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 || extra != "" {
		b = append(b, '{')
		for i, l := range labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, l.name...)
			b = append(b, `="`...)
			b = appendEscaped(b, l.value, true)
			b = append(b, '"')
		}
		if extra != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = append(b, extra...)
			b = append(b, `="`...)
			b = appendFloat(b, extraValue)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	return append(b, '\n')
}

// appendEscaped escapes a HELP text (backslash, line feed) or a label
// value (those and the double quote), as the format asks. Invalid UTF-8
// becomes U+FFFD: the format is UTF-8.
func appendEscaped(b []byte, s string, quote bool) []byte {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat writes a value as client_golang did: +Inf, -Inf, NaN, else
// the shortest representation that reads back the same ('g').
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
