package mcphttp

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ExchangeBodyLimit bounds the copy of each body an Exchange keeps; the
// sizes are always the full ones.
const ExchangeBodyLimit = 256 << 10

// Exchange is one HTTP request and its response as they went over the
// wire, for an HTTP Archive: the SSE events of a streamed response are
// in ResponseBody as the server wrote them.
type Exchange struct {
	Started         time.Time
	Method, URL     string
	RequestHeaders  http.Header // configured values and credentials redacted
	RequestBody     string
	RequestSize     int64
	Status          int // 0 when no response came
	Proto           string
	ResponseHeaders http.Header
	ResponseBody    string        // at most ExchangeBodyLimit bytes
	ResponseSize    int64         // bytes read, even past the limit
	Wait            time.Duration // until the response headers
	Total           time.Duration // until the body ended or was closed
	Err             string        // why there was no response, or why its body ended early
}

// TraceClient returns a client whose every exchange is reported to on
// once its response body ends or is closed (a standalone SSE stream: at
// the end of the session). secrets are header values to redact, usually
// the configured headers; Authorization and Cookie are redacted always.
// on runs on the goroutine that read or closed the body and must return
// quickly. A nil base means a clone of net/http's default transport, as
// Options.Client's default does.
//
// enabled, when set, is asked before each exchange: while it says no, the
// exchange goes straight to base and nothing is copied.
func TraceClient(base http.RoundTripper, secrets map[string]string, enabled func() bool, on func(Exchange)) *http.Client {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{Transport: &tracer{base: base, secrets: secrets, enabled: enabled, on: on}}
}

type tracer struct {
	base    http.RoundTripper
	secrets map[string]string
	enabled func() bool
	on      func(Exchange)
}

const redactedHeader = "[redacted]"

func (t *tracer) redact(h http.Header) http.Header {
	out := h.Clone()
	for k := range out {
		if _, configured := t.secrets[k]; configured || strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Cookie") ||
			strings.EqualFold(k, "Set-Cookie") || t.configured(k) {
			out[k] = []string{redactedHeader}
		}
	}
	return out
}

func (t *tracer) configured(name string) bool {
	for k := range t.secrets {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// RoundTrip implements http.RoundTripper.
func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.enabled != nil && !t.enabled() {
		return t.base.RoundTrip(req)
	}
	x := Exchange{Started: time.Now(), Method: req.Method, URL: req.URL.String(), RequestHeaders: t.redact(req.Header)}
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, ExchangeBodyLimit))
			body.Close()
			x.RequestBody = string(b)
		}
		x.RequestSize = req.ContentLength
	}
	resp, err := t.base.RoundTrip(req)
	x.Wait = time.Since(x.Started)
	if err != nil {
		x.Err, x.Total = err.Error(), x.Wait
		t.on(x)
		return nil, err
	}
	x.Status, x.Proto, x.ResponseHeaders = resp.StatusCode, resp.Proto, t.redact(resp.Header)
	resp.Body = &tracedBody{ReadCloser: resp.Body, x: x, on: t.on}
	return resp, nil
}

// tracedBody keeps a bounded copy of what is read and reports the
// exchange once, at the end of the body or at Close.
type tracedBody struct {
	io.ReadCloser
	mu   sync.Mutex
	x    Exchange
	buf  []byte
	done bool
	on   func(Exchange)
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	if room := ExchangeBodyLimit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(n, room)]...)
	}
	b.x.ResponseSize += int64(n)
	b.mu.Unlock()
	if err != nil {
		reason := ""
		if err != io.EOF {
			reason = err.Error()
		}
		b.report(reason)
	}
	return n, err
}

func (b *tracedBody) Close() error {
	err := b.ReadCloser.Close()
	b.report("")
	return err
}

func (b *tracedBody) report(reason string) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	x := b.x
	x.ResponseBody, x.Total = string(b.buf), time.Since(x.Started)
	if reason != "" && x.Err == "" {
		x.Err = reason
	}
	b.mu.Unlock()
	b.on(x)
}
