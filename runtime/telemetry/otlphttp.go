package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpClient is the span exporter: it sends batches of spans to a
// collector over OTLP/HTTP with JSON bodies (otlpjson.go builds them).
//
// Why not otlptracehttp, the SDK's own HTTP client: it imports the OTLP
// collector package, which carries the gRPC service stubs and gateway, and
// so links all of gRPC into every mcpdeck binary: 6 MB more code and
// gRPC's package init at every start of a one-shot command, for a
// transport mcpdeck never uses. Nor the SDK's otlptrace exporter with a
// client of our own, as before: its protobuf messages linked
// google.golang.org/protobuf, whose package init ran at every start too.
// What an exporter does over HTTP is small: one POST per batch,
// configured by the standard OTEL_EXPORTER_OTLP_* variables, which this
// client reads the same way.
type otlpClient struct {
	url     string
	headers map[string]string
	gzip    bool
	timeout time.Duration
	http    *http.Client
}

// otlpEnv reads the traces-specific variable, else the general one.
func otlpEnv(name string) (value, from string) {
	if v := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
		return v, "OTEL_EXPORTER_OTLP_TRACES_" + name
	}
	return strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_" + name)), "OTEL_EXPORTER_OTLP_" + name
}

func newOTLPClient(endpoint string) (*otlpClient, error) {
	c := &otlpClient{url: endpoint, headers: map[string]string{}, timeout: 10 * time.Second}
	if v, from := otlpEnv("HEADERS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("%s: %w: write headers as key=value,key2=value2", from, ErrConfig)
			}
			if dec, err := url.PathUnescape(strings.TrimSpace(val)); err == nil {
				val = dec
			}
			c.headers[k] = val
		}
	}
	if v, from := otlpEnv("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s=%s: %w: give milliseconds, e.g. 10000", from, v, ErrConfig)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, from := otlpEnv("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("%s=%s: %w: use gzip or none", from, v, ErrConfig)
	}
	tlsCfg, err := otlpTLS()
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsCfg
	c.http = &http.Client{Transport: transport}
	return c, nil
}

// otlpTLS builds the TLS settings from the certificate variables.
func otlpTLS() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if path, from := otlpEnv("CERTIFICATE"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", from, ErrConfig, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s=%s: %w: no PEM certificate in it", from, path, ErrConfig)
		}
		cfg.RootCAs = pool
	}
	certPath, certFrom := otlpEnv("CLIENT_CERTIFICATE")
	keyPath, _ := otlpEnv("CLIENT_KEY")
	if certPath != "" || keyPath != "" {
		cert, err := tls.LoadX509KeyPair(certPath, keyPath)
		if err != nil {
			return nil, fmt.Errorf("%s and its CLIENT_KEY: %w: %w", certFrom, ErrConfig, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// Shutdown implements sdktrace.SpanExporter.
func (c *otlpClient) Shutdown(context.Context) error {
	c.http.CloseIdleConnections()
	return nil
}

var _ sdktrace.SpanExporter = (*otlpClient)(nil)

// maxAttempts bounds the POSTs of one batch: the export queue keeps
// filling meanwhile, and what waits too long is better dropped and counted.
const maxAttempts = 3

// ExportSpans implements sdktrace.SpanExporter: one POST of the batch,
// retried on the statuses the OTLP specification calls retryable (429,
// 502, 503, 504) and on connection failures, within ctx.
func (c *otlpClient) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := encodeSpans(spans)
	if err != nil {
		return fmt.Errorf("encoding spans: %w", err)
	}
	if c.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = b.Bytes()
	}
	var lastErr error
	for attempt := range maxAttempts {
		retry, wait, err := c.post(ctx, body)
		if err == nil {
			return nil
		}
		lastErr = err
		if !retry || attempt == maxAttempts-1 {
			break
		}
		if wait < 0 {
			wait = time.Duration(attempt+1) * 500 * time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (then %w)", lastErr, ctx.Err())
		case <-t.C:
		}
	}
	return lastErr
}

// post sends one request; it says whether a failure is worth retrying and
// how long the collector asked to wait (Retry-After), -1 when it did not.
func (c *otlpClient) post(parent context.Context, body []byte) (retry bool, wait time.Duration, err error) {
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return false, -1, fmt.Errorf("exporting spans to %s: %w", c.url, err)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mcpdeck-otlp/1")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// A refused connection or a request that timed out is retried
		// while the export as a whole has time left; a certificate the
		// collector's name or CA does not match never gets better.
		var badCert *tls.CertificateVerificationError
		return parent.Err() == nil && !errors.As(err, &badCert), -1, fmt.Errorf("exporting spans to %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 == 2 {
		return false, -1, nil
	}
	err = fmt.Errorf("exporting spans to %s: the collector answered %s: %s", c.url, resp.Status, strings.TrimSpace(string(msg)))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		wait = -1
		if s, convErr := strconv.Atoi(resp.Header.Get("Retry-After")); convErr == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return true, wait, err
	}
	return false, -1, err
}
