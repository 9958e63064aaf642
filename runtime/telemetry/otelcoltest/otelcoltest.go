// Package otelcoltest runs a real OpenTelemetry Collector for tests: the
// collector built from its own Go modules (the otlp receiver and the
// contrib file exporter, ../testdata/otelcol, a module of its own so none
// of it reaches mcpdeck's go.mod or binary), listening for OTLP/HTTP on a
// loopback port and writing every span it receives to a file the test
// reads. The binary is built once per source version and cached.
package otelcoltest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"mcpdeck/runtime/internal/daemontest"
)

// source is the collector's module directory.
func source() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "otelcol")
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	// userCache is the user's cache directory, read when the package is
	// initialized: before a TestMain points XDG_CACHE_HOME at a scratch
	// directory (ui/cli's does, so no command it runs touches the user's
	// cache), which would make every test run link the collector afresh.
	userCache, userCacheErr = os.UserCacheDir()
)

// Binary builds the collector (once per test process; cached across runs
// by its sources' hash) and returns its path. Building needs the Go module
// proxy the first time; where it fails the test is skipped with the
// reason, except under CI=true, where it fails.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		msg := "building the OpenTelemetry Collector for the test: " + buildErr.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return built
}

func build() (string, error) {
	dir := source()
	h := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	fmt.Fprint(h, goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	cache := userCache
	if userCacheErr != nil {
		cache = os.TempDir()
	}
	cache = filepath.Join(cache, "mcpdeck-test")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	// Test packages run in parallel: one builds, the others wait for it.
	lock := flock.New(bin + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if _, err := lock.TryLockContext(ctx, time.Second); err != nil {
		return "", fmt.Errorf("waiting for another build: %w", err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".tmp"
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %w\n%s", dir, err, out)
	}
	return bin, os.Rename(tmp, bin)
}

// Collector is a running collector.
type Collector struct {
	// Endpoint is its OTLP/HTTP base URL, http://127.0.0.1:PORT, what
	// OTEL_EXPORTER_OTLP_ENDPOINT and --otlp take.
	Endpoint string
	file     string
	// Daemon is the process; Output is what the collector printed.
	*daemontest.Daemon
}

// Start runs a collector until the test ends, and waits until it accepts
// OTLP.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	port := daemontest.FreePort(t)
	c := &Collector{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), file: filepath.Join(dir, "spans.jsonl")}
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, port, c.file)
	cfgPath := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Daemon = daemontest.Start(t, "the collector", bin, "--config", "file:"+cfgPath)
	// Ready when an empty export is accepted: the collector has no other
	// signal without the health-check extension.
	c.WaitReady(t, 60*time.Second, func(hc *http.Client) (*http.Response, error) {
		return hc.Post(c.Endpoint+"/v1/traces", "application/json", strings.NewReader(`{"resourceSpans":[]}`))
	})
	return c
}

// Span is one span as the collector received it.
type Span struct {
	Name                          string
	TraceID, SpanID, ParentSpanID string // hex
	Kind                          int    // OTLP SpanKind: 1 internal, 2 server, 3 client
	Attributes                    map[string]any
	// Resource is the resource's attributes (service.name, ...).
	Resource    map[string]any
	StatusCode  int // 0 unset, 1 ok, 2 error
	StatusMsg   string
	Events      []string
	Start, End  time.Time
	ScopeName   string
	LinkedSpans []string // span ids of the links
}

// Attr is an attribute as a string ("" when absent).
func (s Span) Attr(key string) string { return str(s.Attributes[key]) }

// ResourceAttr is a resource attribute as a string.
func (s Span) ResourceAttr(key string) string { return str(s.Resource[key]) }

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// Spans reads every span the collector has written so far.
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	f, err := os.Open(c.file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Span
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var doc traceData
		if err := json.Unmarshal(line, &doc); err != nil {
			break // a line being written: read it next time
		}
		out = append(out, doc.spans()...)
	}
	return out
}

// WaitSpans reads the spans until ok holds of them, for at most 60 s.
func (c *Collector) WaitSpans(t testing.TB, what string, ok func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	// The exporter writes a file: there is no event to wait on but its
	// content.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		spans := c.Spans(t)
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range spans {
				names = append(names, s.Name+" ("+s.ResourceAttr("service.name")+")")
			}
			t.Fatalf("waiting for %s: the collector has %d spans: %s\ncollector output:\n%s", what, len(spans), strings.Join(names, ", "), c.Output())
		}
		<-tick.C
	}
}

// traceData is the file exporter's JSON: OTLP's JSON encoding of
// ExportTraceServiceRequest, one per line.
type traceData struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []keyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Scope struct {
				Name string `json:"name"`
			} `json:"scope"`
			Spans []struct {
				TraceID           string     `json:"traceId"`
				SpanID            string     `json:"spanId"`
				ParentSpanID      string     `json:"parentSpanId"`
				Name              string     `json:"name"`
				Kind              int        `json:"kind"`
				StartTimeUnixNano string     `json:"startTimeUnixNano"`
				EndTimeUnixNano   string     `json:"endTimeUnixNano"`
				Attributes        []keyValue `json:"attributes"`
				Events            []struct {
					Name string `json:"name"`
				} `json:"events"`
				Links []struct {
					SpanID string `json:"spanId"`
				} `json:"links"`
				Status struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type keyValue struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string          `json:"stringValue"`
		IntValue    *json.RawMessage `json:"intValue"`
		BoolValue   *bool            `json:"boolValue"`
		DoubleValue *float64         `json:"doubleValue"`
	} `json:"value"`
}

func attributes(kvs []keyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		v := kv.Value
		switch {
		case v.StringValue != nil:
			out[kv.Key] = *v.StringValue
		case v.IntValue != nil:
			// OTLP JSON writes 64-bit integers as strings.
			s := strings.Trim(string(*v.IntValue), `"`)
			n, _ := strconv.ParseInt(s, 10, 64)
			out[kv.Key] = n
		case v.BoolValue != nil:
			out[kv.Key] = *v.BoolValue
		case v.DoubleValue != nil:
			out[kv.Key] = *v.DoubleValue
		}
	}
	return out
}

func nanos(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.Unix(0, n)
}

func (d traceData) spans() []Span {
	var out []Span
	for _, rs := range d.ResourceSpans {
		res := attributes(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Name: s.Name, TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Kind: s.Kind,
					Attributes: attributes(s.Attributes), Resource: res, StatusCode: s.Status.Code, StatusMsg: s.Status.Message,
					Start: nanos(s.StartTimeUnixNano), End: nanos(s.EndTimeUnixNano), ScopeName: ss.Scope.Name}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, e.Name)
				}
				for _, l := range s.Links {
					sp.LinkedSpans = append(sp.LinkedSpans, l.SpanID)
				}
				out = append(out, sp)
			}
		}
	}
	return out
}
