package telemetry

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"mcpdeck/runtime/telemetry/otelcoltest"
)

// receiver is an in-process OTLP/HTTP collector: it decodes every export
// request's OTLP/JSON and keeps the spans with their resource.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	spans    []*tracepb.Span
	resource map[string]string // the last resource's string attributes
	requests int
	header   http.Header // the last export request's headers
	// fail, while positive, answers that many requests with failStatus.
	fail       int
	failStatus int

	// hold, while open, keeps every export request waiting: a collector
	// that does not answer.
	hold chan struct{}
}

func newReceiver(t *testing.T) *receiver { return startReceiver(t, false) }

// startReceiver starts the collector, over TLS with a certificate of its
// own when tls is set.
func startReceiver(t *testing.T, tls bool) *receiver {
	t.Helper()
	r := &receiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	if tls {
		r.srv.StartTLS()
	} else {
		r.srv.Start()
	}
	t.Cleanup(func() {
		r.release()
		r.srv.Close()
	})
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	hold := r.hold
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want POST /v1/traces with application/json", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.header = req.Header.Clone()
	if r.fail > 0 {
		r.fail--
		r.mu.Unlock()
		w.Header().Set("Retry-After", "0")
		http.Error(w, "try again", r.failStatus)
		return
	}
	r.mu.Unlock()
	var in io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		in = zr
	}
	body, err := io.ReadAll(in)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	export, err := otelcoltest.DecodeTraces(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.requests++
	for _, rs := range export.GetResourceSpans() {
		r.resource = stringAttrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// holdExports makes the collector stop answering until release.
func (r *receiver) holdExports() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = make(chan struct{})
}

func (r *receiver) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold != nil {
		close(r.hold)
		r.hold = nil
	}
}

// got returns the spans received so far.
func (r *receiver) got() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// byName returns the spans called name.
func byName(spans []*tracepb.Span, name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

// attrs flattens OTLP attributes to strings, ints and floats as text.
func attrs(kvs []*commonpb.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = v.GetStringValue()
		case *commonpb.AnyValue_IntValue:
			out[kv.GetKey()] = v.GetIntValue()
		case *commonpb.AnyValue_DoubleValue:
			out[kv.GetKey()] = v.GetDoubleValue()
		case *commonpb.AnyValue_BoolValue:
			out[kv.GetKey()] = v.GetBoolValue()
		}
	}
	return out
}

func stringAttrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

func hexID(b []byte) string { return hex.EncodeToString(b) }
